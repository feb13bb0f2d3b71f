// The topology the parallel-wave tests run: a planner fans review.ready out to reviewers.
export const WAVE_TOPOLOGY = `[[role]]
id = "planner"
emits = ["review.ready", "task.complete"]
prompt = "You plan."

[[role]]
id = "reviewer"
emits = ["review.done"]
prompt = "You review."

[handoff]
"loop.start" = ["planner"]
"review.ready" = ["reviewer"]
"review.done" = ["planner"]
`;

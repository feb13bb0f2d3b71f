// What bench/monitor bundles from src/ (esbuild, on the fly): the journal and tasks byte
// styles, the journal writer the harness uses, and the follower and tracker the monitor uses.

export { entryTimestamp as taskTimestamp } from "../../src/harness/store/jsonl-store.js";
export { encodeTaskEntry } from "../../src/harness/tasks/entry.js";
export { JournalWriter } from "../../src/journal/append.js";
export { encodeRecord } from "../../src/journal/codec.js";
export { JournalFollower } from "../../src/journal/follower.js";
export { RunTracker } from "../../src/monitor/detect/run-tracker.js";

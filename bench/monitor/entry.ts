// What bench/monitor bundles from src/ (esbuild, on the fly): the journal and tasks byte
// styles, the journal writer the harness uses, and the follower and tracker the monitor uses.

export { RunTracker } from "../../src/detect/run-tracker.js";
export { JournalWriter } from "../../src/journal/append.js";
export { encodeRecord } from "../../src/journal/codec.js";
export { JournalFollower } from "../../src/journal/follower.js";
export { encodeTaskEntry, taskTimestamp } from "../../src/tasks/entry.js";

// Bundled by bench/agents.mjs: the test suite's scripted model server and logged-in CLIs.
export { cleanupTempDirs } from "../test/helpers/cli.js";
export { loggedInEnv, modelServerFor } from "../test/helpers/logged-in.js";

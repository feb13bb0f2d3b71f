// Bundled by bench/delivery.mjs: the test suite's loopback GitHub and a project whose remote is
// a real bare repository behind git's smart-HTTP server.
export { cleanupTempDirs } from "../test/helpers/cli.js";
export { deliveryProject } from "../test/helpers/delivery-world.js";
export { FakeGitHub } from "../test/helpers/fake-github.js";
export { GIT_ENV } from "../test/helpers/git.js";

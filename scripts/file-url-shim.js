// Injected into the CommonJS `autoloop` bundle for `import.meta.url` (scripts/bundle.mjs);
// `require` and `__filename` are the bundle's own.
export const __autoloopFileUrl = require("node:url").pathToFileURL(__filename).href;

// Imported first by every entry point, so that it runs before the rest of the bundle is
// evaluated: Node opens its inspector on SIGUSR1 when no listener takes it (a debugger any
// local client could attach to and read every secret through, and a run can signal every
// process of its user). So every process of ours takes SIGUSR1 from its first milliseconds
// (the harness's own listener wakes its control inbox) and otherwise ignores it, saying so
// the first time. Only Node's own start-up, before any of our code, is left uncovered.
import { basename } from "node:path";

let told = false;
process.on("SIGUSR1", () => {
  if (told || process.listenerCount("SIGUSR1") > 1) return;
  told = true;
  const name = basename(process.argv[1] ?? "autoloop").replace(/\.c?js$/, "");
  process.stderr.write(
    `${name}: ignored SIGUSR1 (pid ${process.pid}): no process of ours opens a debugger on a signal; later ones are ignored silently\n`,
  );
});

// `autoloop emit <topic> [payload...]`: publish an event from inside a loop.
import { emitContextFromEnv, emitEvent, gateMessage, invalidMessage } from "../harness/emit.js";
import { UserError } from "../util/errors.js";
import { flag, parse } from "./common.js";

const HELP = `Usage: autoloop emit <topic> [payload...]

Publishes an event into the running loop (normally through the event tool, $AUTOLOOP_BIN).
Prints "emitted <topic>" and exits 0. An event guarded by a [[gate]] needs its evidence in
the payload as key=value tokens or a JSON object (autoloop emit verify.passed "tests=42
coverage=87%"); without it the gate's blocked (or failed) event is journaled instead. A
topic outside the allowed set is rejected (journaled as event.invalid); the completion
event is refused while open tasks remain (journaled as task.gate). Each exits 1 and says
what to do instead. A preset's pre_emit hooks check each event after the agent's turn: one
they refuse is journaled as event.invalid then, and the next prompt says so.

With [parallel] enabled, explore.parallel or <allowed-event>.parallel opens a wave: the payload
lists its branch objectives, one "- item" a line (autoloop emit review.ready.parallel "- check
the parser
- check the CLI"). Every word after the topic is payload, even one starting with "-".
*.parallel.joined is the harness's alone.
`;

export async function emitCommand(argv: string[]): Promise<number> {
  // After the topic every word is payload, as it is: a wave's objectives are a "- item" list.
  const raw = argv[0] !== undefined && !argv[0].startsWith("-");
  const p = raw ? undefined : parse(argv, {}, "autoloop emit");
  if (p !== undefined && flag(p, "help")) {
    process.stdout.write(HELP);
    return 0;
  }
  const [topic, ...payload] = p?.positionals ?? argv;
  if (topic === undefined) throw new UserError(`autoloop emit: missing <topic>\n\n${HELP}`);
  const ctx = emitContextFromEnv(process.env);
  const outcome = emitEvent(ctx, topic, payload.join(" "));
  switch (outcome.kind) {
    case "emitted":
      process.stdout.write(`emitted ${topic}\n`);
      return 0;
    case "invalid":
      process.stderr.write(`${invalidMessage(topic, ctx, outcome.reason)}\n`);
      return 1;
    case "gated":
      process.stderr.write(`${gateMessage(topic, outcome.openTasks)}\n`);
      return 1;
    case "blocked":
      process.stderr.write(`${outcome.message}\n`);
      return 1;
  }
}

// `autoloop task add|complete|update|remove|list`: per-run tasks from the command line.
import { existsSync } from "node:fs";
import { runRedactorFromEnv } from "../harness/run-secrets.js";
import type { TaskEntry, TaskPriority } from "../harness/tasks/entry.js";
import { TASK_PRIORITIES } from "../harness/tasks/entry.js";
import type { TaskView } from "../harness/tasks/materialize.js";
import {
  configuredTasksFile,
  resolveProjectDir,
  resolveTasksFile,
} from "../harness/tasks/paths.js";
import { taskLine } from "../harness/tasks/render.js";
import { TaskStore } from "../harness/tasks/store.js";
import { UserError } from "../util/errors.js";
import { printable } from "../util/terminal-text.js";
import { flag, parse, str } from "./common.js";

const HELP = `Usage: autoloop task <subcommand>

  autoloop task add [-p|--priority high|normal|low] [--soft] <text...>   create an open task; prints its id
  autoloop task complete <id>                                         mark a task done
  autoloop task update <id> <text...>                                 replace a task's text
  autoloop task remove <id> [reason...]                               tombstone a task (reason: manual)
  autoloop task list [project-dir] [--json]                           all tasks, grouped by status

Open tasks (other than --soft ones) block a loop's completion.
The tasks file: $AUTOLOOP_TASKS_FILE, else <project>/<core.tasks_file> (default
.autoloop/tasks.jsonl), where <project> is $AUTOLOOP_PROJECT_DIR or the current dir.
`;

async function storeFor(projectArg?: string): Promise<TaskStore> {
  const projectDir = resolveProjectDir(process.env, projectArg);
  if (!existsSync(projectDir))
    throw new UserError(
      `autoloop task: the project folder ${projectDir} does not exist; pass the folder the tasks belong to`,
    );
  const configTasksFile = process.env.AUTOLOOP_TASKS_FILE
    ? undefined
    : await configuredTasksFile(projectDir);
  return new TaskStore(resolveTasksFile({ env: process.env, projectDir, configTasksFile }));
}

function entryJson(t: TaskEntry) {
  return {
    id: t.id,
    text: t.text,
    status: t.status,
    priority: t.priority,
    soft: t.soft,
    source: t.source,
    created: t.created,
    completed: t.completed ?? null,
  };
}

export function renderTaskList(view: TaskView): string {
  if (view.open.length + view.done.length === 0) return "No tasks.\n";
  let out = "";
  if (view.open.length > 0) out += `Open:\n${view.open.map((t) => `${taskLine(t)}\n`).join("")}`;
  if (view.done.length > 0) out += `Done:\n${view.done.map((t) => `${taskLine(t)}\n`).join("")}`;
  return out;
}

function needId(id: string | undefined, usage: string): string {
  if (id === undefined) throw new UserError(`autoloop task: missing <id>; usage: ${usage}`);
  return id;
}

export async function taskCommand(argv: string[]): Promise<number> {
  const p = parse(
    argv,
    {
      priority: { type: "string", short: "p" },
      soft: { type: "boolean" },
      json: { type: "boolean" },
    },
    "autoloop task",
  );
  // Inside a run, the run's keys never reach the tasks file (its page and alerts show it).
  const redactor = runRedactorFromEnv(process.env);
  const [sub, ...words] = p.positionals;
  const args = words.map((w) => redactor.redact(w));
  if (flag(p, "help") || sub === undefined) {
    process.stdout.write(HELP);
    return sub === undefined && !flag(p, "help") ? 2 : 0;
  }
  switch (sub) {
    case "add": {
      const priority = str(p, "priority") ?? "normal";
      if (!(TASK_PRIORITIES as readonly string[]).includes(priority)) {
        throw new UserError(
          `autoloop task add: --priority must be one of high, normal, low; found ${JSON.stringify(priority)}`,
        );
      }
      const task = (await storeFor()).add(args.join(" "), {
        priority: priority as TaskPriority,
        soft: flag(p, "soft"),
      });
      process.stdout.write(`${task.id}\n`);
      return 0;
    }
    case "complete": {
      const result = (await storeFor()).complete(needId(args[0], "autoloop task complete <id>"));
      process.stdout.write(
        result.kind === "completed"
          ? `completed ${result.task.id}\n`
          : `${result.task.id} is already done (nothing changed)\n`,
      );
      return 0;
    }
    case "update": {
      const task = (await storeFor()).update(
        needId(args[0], "autoloop task update <id> <text...>"),
        args.slice(1).join(" "),
      );
      process.stdout.write(`updated ${task.id}\n`);
      return 0;
    }
    case "remove": {
      const task = (await storeFor()).remove(
        needId(args[0], "autoloop task remove <id> [reason...]"),
        args.slice(1).join(" "),
      );
      process.stdout.write(`removed ${task.id}\n`);
      return 0;
    }
    case "list": {
      const store = await storeFor(args[0]);
      const view = store.view();
      if (flag(p, "json")) {
        process.stdout.write(
          `${JSON.stringify({ file: store.path, open: view.open.map(entryJson), done: view.done.map(entryJson) }, null, 2)}\n`,
        );
      } else {
        // Task texts are the run's: shown, never acted on by the terminal.
        process.stdout.write(
          printable(renderTaskList(view), { multiline: true, maxChars: Infinity }),
        );
      }
      return 0;
    }
    default:
      throw new UserError(
        `autoloop task: unknown subcommand ${JSON.stringify(sub)}; expected add, complete, update, remove or list`,
      );
  }
}

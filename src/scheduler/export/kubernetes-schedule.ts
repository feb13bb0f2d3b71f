// Cron expressions rewritten for a Kubernetes CronJob's spec.schedule (pure). Kubernetes parses
// 5 fields with robfig/cron: no seconds, no L/W/#, day-of-week 0-6, and its own rule for when
// day-of-month and day-of-week are ORed.
import { NICKNAMES } from "../timing/cron.js";
import { parseCronFields, type Translation } from "./cron-fields.js";

export const KUBERNETES_TARGET = "a Kubernetes CronJob schedule";

/**
 * robfig/cron treats a field as unrestricted only when one of its items is a bare `*` or `?`
 * (a step such as `*\/2` makes it restricted), and ORs the two day fields when neither is.
 */
function robfigStar(field: string): boolean {
  return field.split(",").some((item) => /^[*?](\/1)?$/.test(item));
}

/** Weekdays as numbers 0-6 with ranges, since robfig/cron rejects 7 and croner's `+`. */
function renderWeekdays(weekdays: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < weekdays.length; ) {
    let j = i;
    while (j + 1 < weekdays.length && weekdays[j + 1] === weekdays[j]! + 1) j++;
    parts.push(j > i ? `${weekdays[i]}-${weekdays[j]}` : String(weekdays[i]));
    i = j + 1;
  }
  return parts.join(",");
}

/** The spec.schedule firing when `cron` fires (in the CronJob's timeZone), or why there is none. */
export function toKubernetesSchedule(cron: string): Translation<string> {
  const nickname = cron.trim().toLowerCase();
  if (NICKNAMES[nickname] !== undefined) return { kind: "ok", value: nickname };
  const parsed = parseCronFields(cron, KUBERNETES_TARGET);
  if (parsed.kind === "refused") return parsed;
  const f = parsed.value;
  if (f.seconds !== undefined && (f.seconds.length !== 1 || f.seconds[0] !== 0)) {
    return {
      kind: "refused",
      reason: `Kubernetes schedules have no seconds field, so the seconds field "${f.text[0]}" must be 0`,
    };
  }
  const [minute, hour, day, month, weekday] = f.text.slice(-5) as [
    string,
    string,
    string,
    string,
    string,
  ];
  if (f.dayMatch === "and" && !robfigStar(day) && !robfigStar(weekday)) {
    return {
      kind: "refused",
      reason:
        `day-of-month "${day}" and day-of-week "${weekday}" must both match here (a field ` +
        'starting with "*" or a "+" counts as "both", as in Vixie cron), but Kubernetes fires ' +
        "on days matching either one; split it into schedules Kubernetes reads the same way",
    };
  }
  const days = weekday.startsWith("*") ? weekday : renderWeekdays(f.weekdays);
  return { kind: "ok", value: `${minute} ${hour} ${day} ${month} ${days}` };
}

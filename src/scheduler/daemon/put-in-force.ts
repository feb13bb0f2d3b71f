// Putting a load's schedules in force: only new or changed schedules are planned again, and
// the names that went away are dropped from the plan.

import { eachItem, runSliced } from "../../util/steps.js";
import type { Schedule } from "../schedules/schedule-file.js";
import { type ScheduleSetUpdate, scheduleChanged } from "../schedules/schedule-set.js";

export interface Planner {
  upsert(schedule: Schedule): void;
  remove(name: string): void;
}

/**
 * Plans what `update` changed since `previous` (the set in force before it) and returns true
 * when a name came, went or moved to another file (the record of files in force is stale).
 */
export async function planUpdate(
  previous: ReadonlyMap<string, Schedule>,
  update: ScheduleSetUpdate,
  planner: Planner,
): Promise<boolean> {
  const { schedules } = update;
  let moved = previous.size !== schedules.size;
  let added = 0;
  await runSliced(
    eachItem(schedules.values(), (schedule) => {
      const old = previous.get(schedule.name);
      if (old === schedule) return; // its file did not change
      if (old === undefined) added++;
      if (old?.file !== schedule.file) moved = true;
      if (old === undefined || scheduleChanged(old, schedule)) planner.upsert(schedule);
    }),
  );
  // Every old name is still here unless the new set is smaller than old plus added.
  if (previous.size + added !== schedules.size)
    await runSliced(
      eachItem(previous.keys(), (name) => {
        if (!schedules.has(name)) planner.remove(name);
      }),
    );
  return moved;
}

// Each tracker's client behind the one Tracker interface, by the kind a schedule's `source`
// names. Loaded on first use: the clients are large, and a daemon whose schedules take no
// issues (or from one tracker) starts without the others.
import type { Tracker, TrackerKind, TrackerOptions } from "./tracker.js";

export type TrackerClient = (options: TrackerOptions) => Tracker;

export const TRACKER_CLIENTS: Record<TrackerKind, () => Promise<TrackerClient>> = {
  github: async () => (await import("./github-issues.js")).githubIssues,
  gitlab: async () => (await import("./gitlab-issues.js")).gitlabIssues,
  linear: async () => (await import("./linear-issues.js")).linearIssues,
};

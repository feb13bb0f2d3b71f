// `npm run bench`: every benchmark; exits non-zero when a target is missed.
import { benchAgents } from "./agents.mjs";
import { benchDelivery } from "./delivery.mjs";
import { benchHarness } from "./harness.mjs";
import { benchPeer } from "./harness-peer.mjs";
import { benchMonitor } from "./monitor.mjs";
import { benchHeartbeats } from "./scheduler/heartbeats.mjs";
import { benchPeers } from "./scheduler/peers.mjs";
import { benchScale } from "./scheduler/scale.mjs";
import { benchTakeover } from "./scheduler/takeover.mjs";
import { benchScheduler } from "./scheduler.mjs";
import { benchSpend } from "./spend.mjs";
import { benchTrends } from "./trends.mjs";

const only = process.argv[2];
const suites = {
  harness: benchHarness,
  "harness-peer": benchPeer,
  agents: benchAgents,
  scheduler: benchScheduler,
  scale: benchScale,
  peers: benchPeers,
  heartbeats: benchHeartbeats,
  takeover: benchTakeover,
  monitor: benchMonitor,
  spend: benchSpend,
  trends: benchTrends,
  delivery: benchDelivery,
};
let ok = true;
for (const [name, fn] of Object.entries(suites)) {
  if (only && only !== name) continue;
  ok = (await fn()) && ok;
}
console.log(ok ? "\nall benchmark targets met" : "\nsome benchmark targets missed");
process.exit(ok ? 0 : 1);

// Claude Code (the npm package), logged in against the scripted Anthropic Messages API.
import { describeLoggedIn } from "./suite.js";

describeLoggedIn("claude");

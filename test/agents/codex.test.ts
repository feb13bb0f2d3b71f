// Codex (the npm package), logged in against the scripted OpenAI Responses API.
import { describeLoggedIn } from "./suite.js";

describeLoggedIn("codex");

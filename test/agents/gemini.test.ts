// Gemini CLI (the npm package), logged in against the scripted Gemini API.
import { describeLoggedIn } from "./suite.js";

describeLoggedIn("gemini");

// Classifies a failed agent exit by its output, so the journal says why (formats.md reasons).

export type BackendFailureReason =
  | "auth_failed"
  | "quota_exhausted"
  | "rate_limited"
  | "backend_failed";

const PATTERNS: Array<[BackendFailureReason, RegExp]> = [
  [
    "auth_failed",
    /\b(unauthori[sz]ed|authentication (failed|error)|invalid api key|invalid x-api-key|not logged in|please (run|use) \S*\s*login)\b/i,
  ],
  [
    "quota_exhausted",
    /\b(quota exceeded|exceeded your current quota|insufficient (credits|quota)|credit balance is too low|usage limit reached)\b/i,
  ],
  ["rate_limited", /\b(rate[ -]?limit(ed)?|too many requests|overloaded_error|HTTP 429)\b/i],
];

export function classifyBackendFailure(outputTail: string): BackendFailureReason {
  for (const [reason, pattern] of PATTERNS) if (pattern.test(outputTail)) return reason;
  return "backend_failed";
}

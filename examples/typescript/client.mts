/**
 * A Quart-Bezique client typed against the service's OpenAPI contract.
 *
 * `generated/api.d.ts` is produced from the repository's openapi.yaml by openapi-typescript
 * (`npm run types`), and openapi-fetch types every path, body and answer from it: a request the
 * contract does not allow, or a field it does not promise, fails `tsc --strict` here. That is the
 * point of the example: `make contract-check` regenerates the types and type-checks this file, so
 * the contract cannot drift from what an integrator's generated client compiles against.
 *
 * Environment: QB_BASE_URL (default http://127.0.0.1:8000, where `make run` serves) and
 * QB_API_KEY (sent as `Authorization: Bearer <key>` when set, for deployments with API keys).
 */
import createClient from "openapi-fetch";

import type { components, paths } from "./generated/api.d.ts";

type Problem = components["schemas"]["Problem"];

const baseUrl = process.env["QB_BASE_URL"] ?? "http://127.0.0.1:8000";
const apiKey = process.env["QB_API_KEY"];

const client = createClient<paths>({
  baseUrl,
  // Only when given: a deployment without API keys needs no header, and an empty Bearer is refused.
  headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
});

/** A refusal the example did not expect: carries the typed problem document for the message. */
class Refused extends Error {
  constructor(what: string, status: number, problem: Problem | undefined) {
    super(`${what}: HTTP ${status} ${problem ? `${problem.code}: ${problem.detail}` : "(no problem document)"}`);
  }
}

/**
 * openapi-fetch answers either `data` (a 2XX body) or `error` (the body of any other documented
 * status: here always a Problem). Narrowing on `error` is what makes `data` non-optional.
 */
function expectOk<T>(
  what: string,
  outcome: { data: T; error?: never; response: Response } | { data?: never; error: Problem; response: Response },
): T {
  if (outcome.error !== undefined) {
    throw new Refused(what, outcome.response.status, outcome.error);
  }
  return outcome.data;
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : `${n}`;
}

async function main(): Promise<void> {
  // Score a hand (docs/rules.md §3-§7): the coronka and bezique of the README's first example.
  const score = expectOk(
    "score",
    await client.POST("/v1/hands/score", { body: { cards: ["KS", "QS", "JS", "JC"], trump: "S" } }),
  );
  const combinations = score.combinations.map((c) => `${c.type} ${c.points}`).join(", ");
  console.log(`score: ${score.score} [${combinations}]`);

  // Compare two hands at a showdown (§8).
  const showdown = expectOk(
    "showdown",
    await client.POST("/v1/showdown", {
      body: {
        trump: "H",
        hands: [
          { player: "bob", cards: ["KH", "QH", "KD", "10D"] },
          { player: "dan", cards: ["QS", "JC", "QH", "JD"] },
        ],
      },
    }),
  );
  const scores = showdown.hands.map((h) => h.score).join(" to ");
  console.log(`showdown: winner ${showdown.winner ?? "none (tie)"} (${scores})`);

  // Validate a betting round (§9): legal so far, and a sequence that breaks a rule. The broken one
  // is a verdict (200, valid: false), not an error, so it is read from `data`, not `error`.
  const betting = expectOk(
    "betting",
    await client.POST("/v1/betting/validate", {
      body: {
        players: ["ann", "bob", "cid", "dan"],
        dealer: "dan",
        ante: 10,
        actions: [
          { player: "ann", type: "stake", amount: 10 },
          { player: "bob", type: "stake", amount: 20 },
        ],
      },
    }),
  );
  console.log(`betting: valid ${betting.valid}, pot ${betting.state.pot}, to act ${betting.state.to_act ?? "nobody"}`);
  const outOfTurn = expectOk(
    "betting",
    await client.POST("/v1/betting/validate", {
      body: { players: ["ann", "bob"], dealer: "bob", ante: 10, actions: [{ player: "bob", type: "stake", amount: 10 }] },
    }),
  );
  const violation = outOfTurn.error;
  console.log(
    `betting: valid ${outOfTurn.valid}` + (violation ? `, action ${violation.index} refused: ${violation.code}` : ""),
  );

  // Settle a finished round (§10): a stake, a matching open, then the showdown hands.
  const settled = expectOk(
    "settle",
    await client.POST("/v1/rounds/settle", {
      body: {
        players: ["ann", "bob"],
        dealer: "bob",
        ante: 10,
        trump: "S",
        actions: [
          { player: "ann", type: "stake", amount: 10 },
          { player: "bob", type: "open", amount: 10 },
        ],
        hands: { ann: ["KS", "QS", "JS", "JC"], bob: ["KH", "QH", "KD", "10D"] },
      },
    }),
  );
  const nets = settled.players.map((p) => `${p.player} ${signed(p.net)}`).join(", ");
  console.log(`settle: pot ${settled.pot}, winners ${settled.winners.join(" ")}; ${nets}`);

  // A hand's odds against one opponent, enumerated exactly.
  const odds = expectOk(
    "odds",
    await client.POST("/v1/hands/odds", { body: { cards: ["KS", "QS", "JS", "JC"], trump: "S", opponents: 1 } }),
  );
  console.log(`odds: win ${odds.win.toFixed(4)}, exact ${odds.exact}, deals ${odds.total ?? "sampled"}`);

  // A refusal: "1C" is a string, so it type-checks, but it is no card. The 422 body is the
  // contract's Problem, typed: `errors` points at the refused field.
  const refused = await client.POST("/v1/hands/score", { body: { cards: ["KS", "QS", "JS", "1C"] } });
  if (refused.error === undefined || refused.response.status !== 422) {
    throw new Error(`expected a 422 problem, got HTTP ${refused.response.status}`);
  }
  const problem: Problem = refused.error;
  const fields = (problem.errors ?? []).map((e) => `${e.pointer} ${e.code}`).join(", ");
  console.log(`refused: ${problem.status} ${problem.code} ${fields}`);
}

main().catch((reason: unknown) => {
  // fetch() reports an unreachable server as "fetch failed" with the reason in `cause`.
  const cause = reason instanceof Error && reason.cause !== undefined ? ` (${String(reason.cause)})` : "";
  console.error(`${reason instanceof Error ? reason.message : String(reason)}${cause} [${baseUrl}]`);
  process.exitCode = 1;
});

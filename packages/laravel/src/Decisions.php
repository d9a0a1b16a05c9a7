<?php

namespace Toolmark\Laravel;

use Illuminate\Support\Carbon;
use Illuminate\Support\Facades\DB;
use Toolmark\Laravel\Generated\Wire;
use Toolmark\Laravel\Models\Conversation;

/**
 * The user's pending decisions across reloads and restarts, as @toolmark/server keeps them
 * (docs/protocol/v1.md, "Pending decisions across reloads and restarts"). A gone page load still
 * takes its cards with it (their confirmIds expire), but the agent's call that answered
 * needs_confirmation is kept in `toolmark_decisions` and asked again on each new page load of the
 * conversation, which shows its card with a new confirmId. The first `confirmed` of any of its cards
 * decides it; every other card still pending is withdrawn (its confirmId expires and its page load
 * gets a `cancel` for the call that asked). A call whose input held a secret keeps no input and is
 * never asked again; past its lifetime (`toolmark.confirm_expiry_minutes` from its first card) a
 * decision is dropped and the agent told once.
 */
class Decisions
{
    /** Built with the package's manager (it sends the calls and the cancels). */
    public function __construct(private readonly Toolmark $toolmark) {}

    /**
     * The identity of a manifest entry as the user saw it: name, title, description, hints and mode,
     * keys sorted. A card is asked again only while its tool's entry is the same.
     *
     * @param array<string, mixed> $entry
     */
    public static function entryOf(array $entry): string
    {
        $sorted = function (mixed $value) use (&$sorted): mixed {
            if (! is_array($value) || array_is_list($value)) {
                return $value;
            }
            ksort($value, SORT_STRING);

            return array_map($sorted, $value);
        };

        return Llm::json($sorted(array_intersect_key($entry, array_flip(['name', 'title', 'description', 'hints', 'mode']))));
    }

    /**
     * Stores the decision of an agent's call that answered needs_confirmation (in the caller's
     * transaction), with the input the call kept (none when it held a secret). A call asked again
     * keeps its decision; a tool the page load's manifest does not list opens none.
     */
    public static function open(object $call): void
    {
        $entry = Toolmark::toolEntry($call->client_id, $call->tool);
        if ($entry === null) {
            return;
        }
        DB::table('toolmark_decisions')->insertOrIgnore([
            'user_id' => $call->user_id,
            'conversation_id' => $call->conversation_id,
            'tool_call_id' => $call->tool_call_id,
            'tool' => $call->tool,
            'entry' => self::entryOf($entry),
            'input' => is_string($call->input ?? null) ? $call->input : null,
            'asked_client_id' => $call->client_id,
            'state' => 'pending',
            'created_at' => now(),
            'updated_at' => now(),
        ]);
    }

    /**
     * Closes the conversation's decision for this tool call if it is still pending: null when there
     * is none, true when this closed it, false when it was closed already (one statement, so of two
     * answers only one closes it).
     *
     * @param 'decided'|'dropped' $state
     */
    public static function close(int $conversationId, string $toolCallId, string $state): ?bool
    {
        $closed = DB::table('toolmark_decisions')
            ->where('conversation_id', $conversationId)
            ->where('tool_call_id', $toolCallId)
            ->where('state', 'pending')
            ->update(['state' => $state, 'updated_at' => now()]);
        if ($closed > 0) {
            return true;
        }

        return DB::table('toolmark_decisions')->where('conversation_id', $conversationId)->where('tool_call_id', $toolCallId)->exists() ? false : null;
    }

    /** True when the decision is older than `toolmark.confirm_expiry_minutes` (null: no server-side limit). */
    public static function pastLifetime(object $decision): bool
    {
        $minutes = config('toolmark.confirm_expiry_minutes');

        return $minutes !== null && ! now()->lessThan(Carbon::parse($decision->created_at)->addSeconds((int) round(60 * (float) $minutes)));
    }

    /**
     * True when a card of this pending confirmation's call will be asked again on the next page
     * load (its decision is pending, kept its input and is inside its lifetime): the agent is then
     * not told its card expired. Otherwise its decision, if any, is dropped here (in the caller's
     * transaction) and the agent must be told.
     */
    public static function askedAgain(object $confirmation): bool
    {
        $decision = DB::table('toolmark_decisions')
            ->where('conversation_id', $confirmation->conversation_id)
            ->where('tool_call_id', $confirmation->tool_call_id)
            ->where('state', 'pending')
            ->first();
        if ($decision !== null && $decision->input !== null && ! self::pastLifetime($decision)) {
            return true;
        }
        if ($decision !== null) {
            self::close((int) $confirmation->conversation_id, (string) $confirmation->tool_call_id, 'dropped');
        }

        return false;
    }

    /**
     * The conversation's page load `clientId` sent a manifest: if the conversation is bound to it,
     * every pending decision it has not been asked yet is asked now (a new `call`, same tool and
     * input), when its tool is listed. A tool not listed yet waits for the next manifest (a page
     * registers tools as its components mount); a tool whose entry changed drops the decision
     * (`refused stale`), and so does its lifetime (`confirmation_expired`); the agent is told either way.
     *
     * @param list<array<string, mixed>> $tools the manifest's tools
     */
    public function reask(Conversation $conversation, string $clientId, int $rev, array $tools): void
    {
        // Read again, not from the request's model: a page load's manifests are POSTed one right after the other and
        // may run side by side (the first one rebinds the conversation while a later one, with more tools, is read).
        $conversation->refresh();
        if ($conversation->active_client_id !== $clientId) {
            return; // an old tab's manifest: the conversation's calls go to the page load it is bound to
        }
        // The page load's latest stored manifest, whichever of its requests stored it.
        $page = DB::table('toolmark_pages')->where('client_id', $clientId)->first();
        $stored = $page !== null ? json_decode((string) $page->tools, true) : null;
        if (is_array($stored)) {
            $rev = (int) $page->rev;
            $tools = $stored;
        }
        $pending = DB::table('toolmark_decisions')
            ->where('conversation_id', $conversation->id)
            ->where('state', 'pending')
            ->orderBy('id')
            ->get();
        foreach ($pending as $decision) {
            if (self::pastLifetime($decision)) {
                $this->drop($conversation, $decision, Wire::EXPIRED_RESULT, 'its time to approve it ran out');

                continue;
            }
            if ($decision->input === null || $decision->asked_client_id === $clientId) {
                continue;
            }
            $entry = null;
            foreach ($tools as $tool) {
                if (is_array($tool) && ($tool['name'] ?? null) === $decision->tool) {
                    $entry = $tool;
                }
            }
            if ($entry === null) {
                continue;
            }
            if (self::entryOf($entry) !== $decision->entry) {
                $stale = ['status' => 'refused', 'code' => 'stale', 'message' => Wire::REFUSED_MESSAGES['staleTool'], 'rev' => $rev];
                $this->drop($conversation, $decision, $stale, 'the tool changed since it was asked');

                continue;
            }
            // Claimed in one statement: two manifests of the same page load ask it once.
            $claimed = DB::table('toolmark_decisions')
                ->where('id', $decision->id)
                ->where('state', 'pending')
                ->where(fn ($q) => $q->whereNull('asked_client_id')->orWhere('asked_client_id', '!=', $clientId))
                ->update(['asked_client_id' => $clientId, 'updated_at' => now()]);
            if ($claimed === 0) {
                continue;
            }
            $input = Json::decode((string) $decision->input);
            $this->toolmark->send($conversation, (string) $decision->tool_call_id, 'call', (string) $decision->tool, is_array($input) ? $input : [], $rev, 'reask');
        }
    }

    /**
     * The page answered a call asked again. A new card (needs_confirmation) leaves the decision
     * pending; if it was decided meanwhile on another page load, that card is withdrawn at once.
     * Any other answer ends the decision and the agent gets that result. Runs in the bridge's transaction;
     * returns the confirmId to withdraw (with a `cancel` for the call), or null.
     *
     * @param array<string, mixed> $result the masked result
     */
    public function answered(Conversation $conversation, object $call, array $result): ?string
    {
        if ($result['status'] === 'needs_confirmation') {
            $open = DB::table('toolmark_decisions')
                ->where('conversation_id', $conversation->id)
                ->where('tool_call_id', $call->tool_call_id)
                ->where('state', 'pending')
                ->exists();
            if ($open) {
                return null;
            }
            DB::table('toolmark_confirmations')->where('confirm_id', $result['confirmId'])->where('call_id', $call->id)
                ->where('state', 'pending')->update(['state' => 'expired', 'updated_at' => now()]);

            return (string) $result['confirmId'];
        }
        $decision = DB::table('toolmark_decisions')
            ->where('conversation_id', $conversation->id)
            ->where('tool_call_id', $call->tool_call_id)
            ->first();
        if ($decision !== null) {
            $why = $result['status'] === 'refused' && in_array($result['code'] ?? null, ['unknown_tool', 'stale'], true)
                ? 'the tool is gone or changed on the reloaded page'
                : 'the reloaded page answered without asking';
            $this->drop($conversation, $decision, $result, $why, $result['status'] === 'ok' ? 'decided' : 'dropped');
        }

        return null;
    }

    /**
     * Withdraws the other cards still pending of a decision just decided by `$confirmId` (in the
     * caller's transaction): their confirmIds expire. Returns them, for a `cancel` to their page loads.
     *
     * @return list<object>
     */
    public static function withdrawOthers(object $confirmation): array
    {
        $others = DB::table('toolmark_confirmations')
            ->where('conversation_id', $confirmation->conversation_id)
            ->where('tool_call_id', $confirmation->tool_call_id)
            ->where('confirm_id', '!=', $confirmation->confirm_id)
            ->where('state', 'pending')
            ->lockForUpdate()
            ->get()
            ->all();
        foreach ($others as $other) {
            DB::table('toolmark_confirmations')->where('confirm_id', $other->confirm_id)->where('state', 'pending')
                ->update(['state' => 'expired', 'updated_at' => now()]);
        }

        return $others;
    }

    /** Sends the page load of a withdrawn card a `cancel` for the call that asked. */
    public function cancel(object $confirmation): void
    {
        $this->toolmark->deliver((int) $confirmation->user_id, (int) $confirmation->conversation_id, [
            'protocol' => Wire::PROTOCOL,
            'type' => 'cancel',
            'clientId' => $confirmation->client_id,
            'id' => $confirmation->call_id,
        ]);
    }

    /**
     * Closes the decision without the user's approval and tells the agent (the result as a tool
     * result of its call, wrapped as page data), unless it was closed already.
     *
     * @param array<string, mixed> $result
     * @param 'decided'|'dropped' $state
     */
    private function drop(Conversation $conversation, object $decision, array $result, string $why, string $state = 'dropped'): void
    {
        if (self::close((int) $decision->conversation_id, (string) $decision->tool_call_id, $state) !== true) {
            return;
        }
        $result = Mask::value($result);
        $conversation->messages()->create([
            'role' => 'tool',
            'text' => Mask::text(Llm::cut("confirmation withdrawn: {$decision->tool} → {$result['status']} ({$why})")),
            'agent' => [
                'role' => 'tool',
                'toolCallId' => $decision->tool_call_id,
                'name' => 'page_call',
                'content' => Llm::boundContent(Llm::json(Llm::wrapUntrusted($result))),
            ],
        ]);
    }
}

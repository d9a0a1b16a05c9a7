<?php

namespace Toolmark\Laravel;

use Illuminate\Support\Carbon;
use Illuminate\Support\Facades\Crypt;
use Illuminate\Support\Facades\DB;
use Illuminate\Support\Facades\Log;
use stdClass;
use Toolmark\Laravel\Agent\ToolParts;
use Toolmark\Laravel\Events\CallCompleted;
use Toolmark\Laravel\Events\ConfirmationRequested;
use Toolmark\Laravel\Events\ConfirmationResolved;
use Toolmark\Laravel\Events\ToolmarkProgress;
use Toolmark\Laravel\Generated\Wire;
use Toolmark\Laravel\Jobs\ContinueAgentTurn;
use Toolmark\Laravel\Jobs\RunFollowUpTurn;
use Toolmark\Laravel\Models\Conversation;

/**
 * The server's rules for page → agent messages, the same as @toolmark/server's. Every message is
 * hostile until checked: at most 1048576 bytes of JSON and 64 levels deep, and valid (Validator).
 * A manifest or `changed` must come from a page load of this user and conversation, and a manifest
 * older than the stored one is refused. A result must answer a call id this server bound to the
 * same user, conversation and page load, once, before its deadline; a late one settles the call as
 * timed out at once. A `confirmed` must carry a confirmId bound from an accepted
 * needs_confirmation of the same user, conversation and page load, within its lifetime, once. Each
 * check runs in a transaction with the binding row locked, so two copies cannot both pass. Results
 * are masked before anything is stored, queued or broadcast. The user's pending decisions outlive
 * the page load that showed their card (Decisions): asked again on a new page load, the first
 * `confirmed` of any of their cards counts, once, and a later one is refused as `expired_confirm`.
 */
class Bridge
{
    /** The largest page message accepted, in bytes of its JSON text. */
    public const MAX_BYTES = Wire::MAX_MESSAGE_BYTES;

    /** The agent's outcome of a call whose deadline passed. */
    public const TIMED_OUT = Wire::TIMEOUT_RESULT;

    /** What the agent is told for a confirmation that expired: the confirmation_expired refusal. */
    public const EXPIRED = Wire::EXPIRED_RESULT;

    private readonly Decisions $decisions;

    /** Built by the container. */
    public function __construct(private readonly Toolmark $toolmark)
    {
        $this->decisions = new Decisions($toolmark);
    }

    /**
     * Handles one raw page message for the conversation, posted by the signed-in user with this id
     * (the caller has checked that the user owns the conversation). Returns null when it was
     * accepted, or the reason it was rejected (Wire::REJECT_REASONS: invalid, mismatch, old_rev,
     * unknown_id, duplicate, late, unknown_confirm, duplicate_confirm, expired_confirm); rejections
     * are logged without the payload.
     */
    public function handle(Conversation $conversation, int $userId, string $raw): ?string
    {
        // Depth: PHP counts one more level than the protocol (whose root is depth 1).
        $object = strlen($raw) <= Wire::MAX_MESSAGE_BYTES ? json_decode($raw, false, Wire::MAX_DEPTH + 1) : null;
        self::defaultChanges($object);
        $problem = Validator::problem($object);
        if ($problem !== null) {
            // Not a v1 message: perhaps one of an opt-in extension (a v1 server drops those here).
            $extension = Validator::extensionProblem($object);
            if ($extension === null) {
                return $this->extension($conversation, $userId, Json::fromObject($object));
            }

            return $this->reject($conversation, 'invalid', null, $extension === 'not an extension message' ? $problem : $extension);
        }
        // Objects stay as the page wrote them: `{}` in a result is `{}` for the model (see Json).
        $message = Json::fromObject($object);

        return match ($message['type']) {
            'manifest' => $this->manifest($conversation, $userId, $message, Llm::json($message['tools'])),
            'changed' => $this->changed($conversation, $userId, $message),
            'result' => $this->result($conversation, $userId, $message),
            'confirmed' => $this->confirmed($conversation, $userId, $message),
        };
    }

    /** Logs a page message refused unread for its size: rejected as `invalid` (too large). */
    public function tooLarge(Conversation $conversation): void
    {
        $this->reject($conversation, 'invalid', null, 'too large');
    }

    /**
     * A needs_confirmation result without `changes` gets `changes: []` before validation, as in
     * @toolmark/server: the deferred flow writes `changes?`, so such a page must not wait out its deadline.
     */
    private static function defaultChanges(mixed $message): void
    {
        if (! $message instanceof stdClass || ! in_array($message->type ?? null, ['result', 'confirmed'], true)) {
            return;
        }
        $result = $message->result ?? null;
        if ($result instanceof stdClass && ($result->status ?? null) === 'needs_confirmation' && ! property_exists($result, 'changes')) {
            $result->changes = [];
        }
    }

    /** Why a page load may not speak for this user and conversation (`mismatch`), or null. */
    private static function ownership(?object $known, int $userId, Conversation $conversation): ?string
    {
        return $known !== null && ((int) $known->user_id !== $userId || (int) $known->conversation_id !== (int) $conversation->id)
            ? 'mismatch' : null;
    }

    /**
     * Keeps the latest manifest per page load; a new page load of this conversation rebinds it.
     * Manifests can arrive out of order (each is its own POST): an older revision is refused
     * (`old_rev`) and the newer one kept. The page load the conversation is bound to is then asked
     * the user's pending decisions it has not been asked yet (Decisions).
     */
    private function manifest(Conversation $conversation, int $userId, array $message, string $tools): ?string
    {
        $outcome = DB::transaction(function () use ($conversation, $userId, $message, $tools) {
            $known = DB::table('toolmark_pages')->where('client_id', $message['clientId'])->lockForUpdate()->first();
            $mismatch = self::ownership($known, $userId, $conversation);
            if ($mismatch !== null) {
                return $mismatch;
            }
            if ($known !== null && (int) $known->rev > $message['rev']) {
                return 'old_rev';
            }
            DB::table('toolmark_pages')->upsert([[
                'client_id' => $message['clientId'],
                'user_id' => $userId,
                'conversation_id' => $conversation->id,
                'rev' => $message['rev'],
                'tools' => $tools,
                'created_at' => now(),
                'updated_at' => now(),
            ]], ['client_id'], ['rev', 'tools', 'updated_at']);
            if ($known === null) {
                // Calls already sent stay bound to the old page load until their deadline.
                $conversation->forceFill(['active_client_id' => $message['clientId']])->save();
            }

            return null;
        });
        if ($outcome !== null) {
            return $this->reject($conversation, $outcome, $message['clientId']);
        }
        PageWait::arrived($userId, $conversation->id);
        $this->decisions->reask($conversation, $message['clientId'], (int) $message['rev'], $message['tools']);

        return null;
    }

    /**
     * A message of an opt-in extension. An offer is answered on the channel with the extensions this server
     * takes (`progress` and `context`); a `context` is kept for its page load (PageContext). A `progress` message
     * must name a pending call bound to this user, conversation and page load (else `unknown_id` / `mismatch`);
     * one for a call already answered or past its deadline is dropped (progress never extends a deadline). At most `maxProgressPerSecond` per page load per second are passed on
     * (PerSecond, in the cache), the message masked like every text the server keeps, as `.toolmark.progress`;
     * preliminary `data` is not passed on.
     *
     * @param array<string, mixed> $message
     */
    private function extension(Conversation $conversation, int $userId, array $message): ?string
    {
        $clientId = $message['clientId'];
        if ($message['type'] === 'extensions') {
            $known = DB::table('toolmark_pages')->where('client_id', $clientId)->first();
            $mismatch = self::ownership($known, $userId, $conversation);
            if ($mismatch !== null) {
                return $this->reject($conversation, $mismatch, $clientId);
            }
            $accept = array_values(array_intersect($message['offer'], Wire::EXTENSIONS['accepted']));
            $this->toolmark->deliver($userId, (int) $conversation->id, ['protocol' => Wire::PROTOCOL, 'type' => 'extensions', 'clientId' => $clientId, 'accept' => $accept]);

            return null;
        }
        if ($message['type'] === 'context') {
            $refused = PageContext::receive($conversation, $userId, $message);

            return $refused === null ? null : $this->reject($conversation, $refused[0], $clientId, $refused[1]);
        }
        if (! PerSecond::take('progress', $clientId, Wire::EXTENSIONS['maxProgressPerSecond'])) {
            return null; // dropped, unlogged: a page reporting too often is not an error
        }
        $binding = DB::table('toolmark_calls')->where('id', $message['id'])->first();
        if ($binding === null) {
            return $this->reject($conversation, 'unknown_id', $message['id']);
        }
        if ((int) $binding->user_id !== $userId || (int) $binding->conversation_id !== (int) $conversation->id || $binding->client_id !== $clientId) {
            return $this->reject($conversation, 'mismatch', $message['id']);
        }
        if ($binding->kind !== 'call' || $binding->state !== 'pending' || self::pastDeadline($binding) || $binding->origin !== 'agent') {
            return null;
        }
        $progress = [];
        if (array_key_exists('fraction', $message)) {
            $progress['fraction'] = $message['fraction'];
        }
        if (array_key_exists('message', $message)) {
            $progress['message'] = Mask::text(Mask::scrub($message['message'], Mask::secretForms(self::secretsOf($binding))));
        }
        if ($progress !== [] && config('toolmark.chat_events', true)) {
            try {
                event(new ToolmarkProgress($userId, (int) $conversation->id, $binding->tool_call_id, $progress));
            } catch (\Throwable $error) {
                report($error);
            }
        }

        return null;
    }

    /** A `changed` only proves the page is alive; another user's or conversation's page load is refused. */
    private function changed(Conversation $conversation, int $userId, array $message): ?string
    {
        $known = DB::table('toolmark_pages')->where('client_id', $message['clientId'])->first();
        $mismatch = self::ownership($known, $userId, $conversation);

        return $mismatch === null ? null : $this->reject($conversation, $mismatch, $message['clientId']);
    }

    private function result(Conversation $conversation, int $userId, array $message): ?string
    {
        $outcome = DB::transaction(function () use ($conversation, $userId, $message) {
            $binding = DB::table('toolmark_calls')->where('id', $message['id'])->lockForUpdate()->first();
            if ($binding === null) {
                return 'unknown_id';
            }
            if ((int) $binding->user_id !== $userId
                || (int) $binding->conversation_id !== (int) $conversation->id
                || $binding->client_id !== $message['clientId']) {
                return 'mismatch';
            }
            if ($binding->state === 'answered') {
                return 'duplicate';
            }
            if ($binding->state === 'timed_out') {
                return 'late';
            }
            if (self::pastDeadline($binding)) {
                // Settled now: the agent gets its timeout and the page its cancel, without waiting for the queue.
                DB::table('toolmark_calls')->where('id', $binding->id)->update(['state' => 'timed_out', 'updated_at' => now()]);

                return ['late', $binding];
            }
            DB::table('toolmark_calls')->where('id', $binding->id)->update(['state' => 'answered', 'updated_at' => now()]);
            $forms = Mask::secretForms(self::secretsOf($binding));
            $result = $message['result'];
            if ($result['status'] === 'needs_confirmation') {
                // The summary reaches the chat, the store and the model: cut to Wire::MAX_PROVIDER_TEXT first.
                $result['summary'] = Llm::cut($result['summary']);
            }
            if ($binding->kind === 'call' && $result['status'] === 'needs_confirmation') {
                DB::table('toolmark_confirmations')->insertOrIgnore([
                    'confirm_id' => $result['confirmId'],
                    'user_id' => $userId,
                    'conversation_id' => $conversation->id,
                    'client_id' => $binding->client_id,
                    'call_id' => $binding->id,
                    'tool_call_id' => $binding->tool_call_id,
                    'tool' => $binding->tool,
                    // The page's summary is free text: the call's secrets cut out, then masked.
                    'summary' => Mask::text(Mask::scrub($result['summary'], $forms)),
                    'state' => 'pending',
                    'created_at' => now(),
                    'updated_at' => now(),
                ]);
            }
            if ($binding->kind === 'describe' && $result['status'] === 'ok' && is_array($result['data'] ?? null)) {
                self::learn($binding->client_id, $binding->tool, $result['data']['inputSchema'] ?? null);
            }
            $masked = Mask::result($result, $binding->kind, $forms);
            // The agent's page call as the chat shows it, in the state the answer puts it in.
            $running = $binding->origin === 'agent' && is_string($binding->part ?? null) ? json_decode($binding->part, true) : null;
            $part = is_array($running) ? ToolParts::outcome($running, $masked, false, $forms) : null;
            $withdraw = null;
            if ($binding->kind === 'call' && $binding->origin === 'agent' && $result['status'] === 'needs_confirmation') {
                // The user's decision outlives the card: asked again on a new page load.
                Decisions::open($binding);
            } elseif ($binding->kind === 'call' && $binding->origin === 'reask') {
                $withdraw = $this->decisions->answered($conversation, $binding, $masked);
            }

            return [null, $binding, $masked, $withdraw, $part];
        });
        if (is_string($outcome)) {
            return $this->reject($conversation, $outcome, $message['id']);
        }
        [$late, $binding] = $outcome;
        if ($late !== null) {
            $this->settleTimeout($binding);

            return $this->reject($conversation, $late, $message['id']);
        }
        [, , $masked, $withdraw, $part] = $outcome;
        if ($withdraw !== null) {
            // Decided on another page load while this card was asked: withdrawn at once.
            $this->decisions->cancel((object) ['user_id' => $binding->user_id, 'conversation_id' => $binding->conversation_id, 'client_id' => $binding->client_id, 'call_id' => $binding->id]);
        }
        if ($part !== null) {
            ToolParts::publish($userId, (int) $conversation->id, $part);
        }
        if ($binding->origin === 'agent') {
            ContinueAgentTurn::dispatch((int) $conversation->id, $binding->tool_call_id, $binding->tool, $masked, $binding->kind, (bool) $binding->untrusted || self::untrustedNow($binding->client_id, $binding->tool), $part, Llm::structured(Toolmark::toolEntry($binding->client_id, $binding->tool)));
        }
        if ($masked['status'] === 'needs_confirmation') {
            $this->toolmark->notify(new ConfirmationRequested((int) $conversation->id, $binding->id, $masked['confirmId'], $binding->tool, $masked['summary']));
        }
        $this->toolmark->notify(new CallCompleted((int) $conversation->id, $binding->id, $binding->tool, $masked, $binding->origin));

        return null;
    }

    /** True when the call's deadline (milliseconds) has passed. */
    private static function pastDeadline(object $binding): bool
    {
        $deadline = $binding->deadline_ms !== null ? (int) $binding->deadline_ms
            : (int) Carbon::parse($binding->deadline_at)->getPreciseTimestamp(3);

        return Toolmark::nowMs() > $deadline;
    }

    /** @return list<string> the values at the sensitive input paths of the call's turn */
    public static function secretsOf(object $binding): array
    {
        if (! is_string($binding->secrets ?? null)) {
            return [];
        }
        $list = json_decode(Crypt::decryptString($binding->secrets), true);

        return is_array($list) ? array_values(array_filter($list, 'is_string')) : [];
    }

    /** Keeps the sensitive paths (`writeOnly`) of a described input schema for the page load and tool. */
    private static function learn(string $clientId, string $tool, mixed $schema): void
    {
        $row = DB::table('toolmark_pages')->where('client_id', $clientId)->lockForUpdate()->first();
        if ($row === null) {
            return;
        }
        $described = json_decode((string) $row->described, true);
        $described = is_array($described) ? $described : [];
        $described[$tool] = Mask::sensitivePathsOf($schema);
        DB::table('toolmark_pages')->where('client_id', $clientId)->update(['described' => Llm::json((object) $described)]);
    }

    /**
     * The deadline job's check: a pending call past its deadline (milliseconds) is settled as timed
     * out. Returns how many milliseconds are left when the job ran early (the queue counts whole
     * seconds), else 0.
     */
    public function expire(string $callId): int
    {
        $outcome = DB::transaction(function () use ($callId) {
            $binding = DB::table('toolmark_calls')->where('id', $callId)->lockForUpdate()->first();
            if ($binding === null || $binding->state !== 'pending') {
                return null;
            }
            if (! self::pastDeadline($binding)) {
                return max(1, (int) $binding->deadline_ms - Toolmark::nowMs());
            }
            DB::table('toolmark_calls')->where('id', $callId)->update(['state' => 'timed_out', 'updated_at' => now()]);

            return $binding;
        });
        if (is_int($outcome)) {
            return $outcome;
        }
        if ($outcome !== null) {
            $this->settleTimeout($outcome);
        }

        return 0;
    }

    /** A call just settled as timed out: the page gets `cancel`, the agent the timeout result. */
    private function settleTimeout(object $binding): void
    {
        $this->toolmark->deliver((int) $binding->user_id, (int) $binding->conversation_id, [
            'protocol' => Wire::PROTOCOL,
            'type' => 'cancel',
            'clientId' => $binding->client_id,
            'id' => $binding->id,
        ]);
        if ($binding->origin === 'agent') {
            $running = is_string($binding->part ?? null) ? json_decode($binding->part, true) : null;
            $part = is_array($running) ? ToolParts::outcome($running, self::TIMED_OUT, true) : null;
            if ($part !== null) {
                ToolParts::publish((int) $binding->user_id, (int) $binding->conversation_id, $part);
            }
            ContinueAgentTurn::dispatch((int) $binding->conversation_id, $binding->tool_call_id, $binding->tool, self::TIMED_OUT, $binding->kind, (bool) $binding->untrusted, $part);
        }
        $this->toolmark->notify(new CallCompleted((int) $binding->conversation_id, $binding->id, $binding->tool, self::TIMED_OUT, $binding->origin));
    }

    private function confirmed(Conversation $conversation, int $userId, array $message): ?string
    {
        $outcome = DB::transaction(function () use ($conversation, $userId, $message) {
            $binding = DB::table('toolmark_confirmations')->where('confirm_id', $message['confirmId'])->lockForUpdate()->first();
            if ($binding === null) {
                return 'unknown_confirm';
            }
            if ((int) $binding->user_id !== $userId
                || (int) $binding->conversation_id !== (int) $conversation->id
                || $binding->client_id !== $message['clientId']) {
                return 'mismatch';
            }
            if ($binding->state !== 'pending') {
                return $binding->state === 'used' ? 'duplicate_confirm' : 'expired_confirm';
            }
            $call = DB::table('toolmark_calls')->where('id', $binding->call_id)->first(['origin', 'secrets']);
            $binding->origin = (string) ($call->origin ?? 'agent');
            // The outcome is masked as the call's result is: with the values the call carried at its sensitive paths too.
            $masked = Mask::value($message['result'], $call === null ? [] : Mask::secretForms(self::secretsOf($call)));
            DB::table('toolmark_calls')->where('id', $binding->call_id)->whereNotNull('secrets')->update(['secrets' => null]);
            if (self::pastLifetime($binding)) {
                // Past its lifetime: refused, and the agent is told it expired (once: its decision
                // ends too, so no page load asks it again).
                $tell = Decisions::close((int) $conversation->id, (string) $binding->tool_call_id, 'dropped') !== false;
                $this->expireConfirmation($conversation, $binding, 'its time to approve it ran out', $tell);

                return ['expired_confirm', $binding, 'past its lifetime'];
            }
            // The same decision asked on several page loads (a reload, another tab): the first answer counts, once.
            if (Decisions::close((int) $conversation->id, (string) $binding->tool_call_id, 'decided') === false) {
                DB::table('toolmark_confirmations')->where('confirm_id', $binding->confirm_id)
                    ->update(['state' => 'expired', 'updated_at' => now()]);

                return ['expired_confirm', $binding, 'answered on another page load'];
            }
            $withdrawn = Decisions::withdrawOthers($binding);
            DB::table('toolmark_confirmations')->where('confirm_id', $binding->confirm_id)
                ->update(['state' => 'used', 'updated_at' => now()]);
            if ($binding->origin !== 'app') {
                // The call's part moves to the outcome (the chat shows it once the transaction commits).
                $part = self::partOf($conversation, $binding, $masked);
                // The outcome joins the history as a tool result for the original call: wrapped, never a system message.
                $conversation->messages()->create([
                    'part' => $part,
                    'role' => 'tool',
                    'text' => Mask::text(Llm::cut("confirmed {$binding->tool} ({$binding->summary}) → {$message['result']['status']}")),
                    'agent' => [
                        'role' => 'tool',
                        'toolCallId' => $binding->tool_call_id,
                        'name' => 'page_call',
                        'confirmId' => $binding->confirm_id,
                        'content' => Llm::boundContent(Llm::json(Llm::modelResult($masked, Llm::structured(Toolmark::toolEntry($binding->client_id, $binding->tool)), true))),
                    ],
                ]);
            }

            return [null, $binding, $withdrawn, $masked];
        });
        if (is_string($outcome)) {
            return $this->reject($conversation, $outcome, $message['confirmId']);
        }
        [$refused, $binding] = $outcome;
        if ($refused !== null) {
            $this->toolmark->notify(new ConfirmationResolved((int) $conversation->id, $binding->confirm_id, $binding->tool, self::EXPIRED));

            return $this->reject($conversation, $refused, $message['confirmId'], $outcome[2]);
        }
        // The other cards of the decision are withdrawn: each page load that shows one gets a cancel.
        foreach ($outcome[2] as $other) {
            $this->decisions->cancel($other);
            $this->toolmark->notify(new ConfirmationResolved((int) $conversation->id, $other->confirm_id, $other->tool, self::EXPIRED));
        }
        if ($binding->origin !== 'app') {
            RunFollowUpTurn::dispatch((int) $conversation->id);
        }
        $this->toolmark->notify(new ConfirmationResolved((int) $conversation->id, $binding->confirm_id, $binding->tool, $outcome[3]));

        return null;
    }

    /**
     * The part of the agent's call a confirmation belongs to, moved to the confirmation's outcome and
     * broadcast once the transaction commits; null when the call has none.
     *
     * @param array<string, mixed> $result the masked outcome
     * @return array<string, string>|null
     */
    private static function partOf(Conversation $conversation, object $binding, array $result, ?string $summary = null): ?array
    {
        $base = ToolParts::ofCall((int) $conversation->id, (string) $binding->tool_call_id);
        if ($base === null) {
            return null;
        }
        $part = ToolParts::outcome($base, $result, false, [], $summary);
        DB::afterCommit(fn () => ToolParts::publish((int) $conversation->user_id, (int) $conversation->id, $part));

        return $part;
    }

    /** True when the confirmation is older than `toolmark.confirm_expiry_minutes` (null: no server-side limit). */
    private static function pastLifetime(object $binding): bool
    {
        $minutes = config('toolmark.confirm_expiry_minutes');

        return $minutes !== null && ! now()->lessThan(Carbon::parse($binding->created_at)->addSeconds((int) round(60 * (float) $minutes)));
    }

    /**
     * Marks a pending confirmation expired and, for the agent's call, adds the expired result to its
     * history (unless `$tell` is false: its decision is asked again, or was told already).
     */
    private function expireConfirmation(Conversation $conversation, object $binding, string $why, bool $tell = true): void
    {
        DB::table('toolmark_confirmations')->where('confirm_id', $binding->confirm_id)
            ->update(['state' => 'expired', 'updated_at' => now()]);
        if (! $tell || DB::table('toolmark_calls')->where('id', $binding->call_id)->value('origin') === 'app') {
            return; // not the agent's call (or not to be told): nothing joins its history
        }
        $conversation->messages()->create([
            'part' => self::partOf($conversation, $binding, self::EXPIRED, "confirmation expired ({$why})"),
            'role' => 'tool',
            'text' => Mask::text("confirmation expired: {$binding->summary} ({$why})"),
            'agent' => [
                'role' => 'tool',
                'toolCallId' => $binding->tool_call_id,
                'name' => 'page_call',
                'confirmId' => $binding->confirm_id,
                'content' => Llm::json(Llm::wrapUntrusted(self::EXPIRED)),
            ],
        ]);
    }

    /**
     * The page load with this clientId is gone (reloaded, closed, navigated away): its pending
     * confirmations can never be answered, so they expire at once, each with a chat line and the
     * confirmation_expired refusal as the agent's tool result, except those whose decision will be
     * asked again on the next page load (Decisions): the agent is not told of those, their card comes
     * back. Only this user's and this conversation's confirmations of that page load are touched.
     * Returns how many expired.
     */
    public function pageGone(Conversation $conversation, int $userId, string $clientId): int
    {
        $expired = DB::transaction(function () use ($conversation, $userId, $clientId): array {
            $pending = DB::table('toolmark_confirmations')
                ->where('conversation_id', $conversation->id)
                ->where('user_id', $userId)
                ->where('client_id', $clientId)
                ->where('state', 'pending')
                ->orderBy('created_at')
                ->lockForUpdate()
                ->get();
            foreach ($pending as $binding) {
                $this->expireConfirmation($conversation, $binding, 'the page that asked for it is gone', ! Decisions::askedAgain($binding));
            }

            return $pending->all();
        });
        foreach ($expired as $binding) {
            $this->toolmark->notify(new ConfirmationResolved((int) $conversation->id, $binding->confirm_id, $binding->tool, self::EXPIRED));
        }

        return count($expired);
    }

    /** Whether the page load's current manifest marks the tool untrustedContent (the hint at call time counts too). */
    private static function untrustedNow(string $clientId, string $tool): bool
    {
        $tools = json_decode((string) DB::table('toolmark_pages')->where('client_id', $clientId)->value('tools'), true);
        foreach (is_array($tools) ? $tools : [] as $entry) {
            if (is_array($entry) && ($entry['name'] ?? null) === $tool) {
                return ($entry['hints']['untrustedContent'] ?? false) === true;
            }
        }

        return false;
    }

    private function reject(Conversation $conversation, string $reason, ?string $id, ?string $detail = null): string
    {
        Log::warning('toolmark: rejected page message', array_filter([
            'reason' => $reason,
            'conversation' => $conversation->id,
            'id' => $id === null ? null : Mask::text($id),
            'detail' => $detail,
        ], fn ($v) => $v !== null));

        return $reason;
    }
}

<?php

namespace Toolmark\Laravel;

use Illuminate\Auth\Access\AuthorizationException;
use Illuminate\Contracts\Auth\Access\Gate;
use Illuminate\Contracts\Auth\Authenticatable;
use Illuminate\Contracts\Events\Dispatcher;
use Illuminate\Http\Request;
use Illuminate\Support\Facades\Crypt;
use Illuminate\Support\Facades\DB;
use Illuminate\Support\Facades\Log;
use Illuminate\Support\Facades\Route;
use Illuminate\Support\Str;
use Toolmark\Laravel\Events\CallRequested;
use Toolmark\Laravel\Events\ToolmarkMessage;
use Toolmark\Laravel\Generated\Wire;
use Toolmark\Laravel\Jobs\ExpireCall;
use Toolmark\Laravel\Models\Conversation;

/**
 * The package's entry point (the `Toolmark` facade): sends calls to a conversation's page, answers
 * whether a user may call a tool, and gives Inertia the shared props `@toolmark/inertia` reads.
 */
class Toolmark
{
    /** The Gate ability an app defines to allow or refuse a tool per user: fn ($user, string $tool, Conversation $c): bool. */
    public const ABILITY = 'toolmark.call';

    /** What the agent is told when the Gate refuses a tool (the protocol's not_allowed refusal). */
    public const NOT_ALLOWED = [
        'status' => 'refused',
        'code' => 'not_allowed',
        'message' => 'The app does not allow this tool for this user',
    ];

    /** What the agent is told when no page is connected to the conversation (the protocol package's literal). */
    public const NO_PAGE = Wire::NO_PAGE_RESULT;

    /** Built by the container (the `Toolmark` facade resolves the singleton). */
    public function __construct(
        protected Dispatcher $events,
        protected Gate $gate,
    ) {}

    /**
     * Calls a page tool from PHP: binds a fresh call id to the conversation's current page load and
     * sends it. The result arrives later as a CallCompleted event (and ConfirmationRequested for a
     * needs_confirmation); it does not enter the agent's history. Returns the call id, or null when
     * no page is connected.
     *
     * @param array<string, mixed> $input
     *
     * @throws AuthorizationException when the `toolmark.call` Gate refuses the tool for the conversation's user
     */
    public function call(Conversation $conversation, string $tool, array $input = []): ?string
    {
        if (! $this->allows($conversation, $tool)) {
            throw new AuthorizationException(self::NOT_ALLOWED['message']);
        }

        return $this->send($conversation, 'app_'.Str::uuid(), 'call', $tool, $input, null, 'app');
    }

    /**
     * Whether the conversation's user may call the tool: the app's `toolmark.call` Gate when it
     * defines one, otherwise yes (the page's own policy and confirmations still apply).
     */
    public function allows(Conversation $conversation, string $tool): bool
    {
        if (! $this->gate->has(self::ABILITY)) {
            return true;
        }
        $user = $conversation->user;

        return $user !== null && $this->gate->forUser($user)->allows(self::ABILITY, [$tool, $conversation]);
    }

    /**
     * Sends a `call` or `describe` to the conversation's current page load. The id is a random
     * UUID v4, stored with user, conversation and page load before the message is broadcast, with
     * its deadline in milliseconds, whether the tool is untrustedContent in that page load's manifest
     * now (its result is wrapped even if the page changes before it answers), and the values at the
     * tool's sensitive paths (encrypted, to cut out of its result). An agent's call also keeps its
     * input when masking leaves it whole (no secret): a card it gets can then be asked again on a new
     * page load (Decisions). A delayed job enforces the deadline. Returns the id, or null when no page
     * is connected.
     *
     * @param 'call'|'describe' $kind
     * @param array<string, mixed> $input
     * @param 'agent'|'app'|'reask' $origin reask: a pending decision asked again (Decisions)
     * @param list<string> $secrets
     * @param array<string, string>|null $part an agent's page_call: its running part (ToolParts), kept to move it to the page's answer
     */
    public function send(
        Conversation $conversation,
        string $toolCallId,
        string $kind,
        string $tool,
        array $input = [],
        ?int $rev = null,
        string $origin = 'agent',
        array $secrets = [],
        ?array $part = null,
    ): ?string {
        $clientId = $conversation->active_client_id;
        if ($clientId === null) {
            return null;
        }
        $id = (string) Str::uuid();
        $deadlineMs = (int) config('toolmark.deadline_ms', 15000);
        $entry = self::toolEntry($clientId, $tool);
        DB::table('toolmark_calls')->insert([
            'id' => $id,
            'user_id' => $conversation->user_id,
            'conversation_id' => $conversation->id,
            'client_id' => $clientId,
            'kind' => $kind,
            'tool' => $tool,
            'tool_call_id' => $toolCallId,
            'origin' => $origin,
            'deadline_at' => now()->addMilliseconds($deadlineMs),
            'deadline_ms' => self::nowMs() + $deadlineMs,
            'untrusted' => ($entry['hints']['untrustedContent'] ?? false) === true,
            'secrets' => $secrets === [] ? null : Crypt::encryptString(json_encode(array_values($secrets))),
            // The agent's call input, kept to ask its card again after a reload: only when masking leaves it whole.
            'input' => $kind === 'call' && $origin === 'agent' ? self::wholeInput($input, $secrets) : null,
            'part' => $part === null ? null : Llm::json($part),
            'state' => 'pending',
            'created_at' => now(),
            'updated_at' => now(),
        ]);
        $message = ['protocol' => Wire::PROTOCOL, 'type' => $kind, 'clientId' => $clientId, 'id' => $id, 'tool' => $tool];
        if ($kind === 'call') {
            $message['input'] = (object) $input; // `{}`, never `[]`, for no input
            if ($rev !== null) {
                $message['rev'] = $rev;
            }
        }
        try {
            $this->deliver((int) $conversation->user_id, (int) $conversation->id, $message);
        } catch (\Throwable $error) {
            // Not broadcast (the broadcaster is down, or the message is over its size limit): the call times out at
            // its deadline like any unanswered one, and the turn goes on. Nothing of the message is logged.
            Log::warning('toolmark: a call could not be broadcast', ['conversation' => (int) $conversation->id, 'error' => $error::class]);
        }
        $this->scheduleDeadline($id, $deadlineMs);
        $this->notify(new CallRequested((int) $conversation->id, $id, $kind, $tool, Mask::value($input, Mask::secretForms($secrets)), $origin));

        return $id;
    }

    /**
     * The input as JSON when masking leaves it whole (no value at a sensitive path, nothing the
     * masking heuristics catch), else null: an input that held a secret is never stored.
     *
     * @param array<string, mixed> $input
     * @param list<string> $secrets
     */
    public static function wholeInput(array $input, array $secrets = []): ?string
    {
        return Mask::value($input, Mask::secretForms($secrets)) === $input ? Llm::json((object) $input) : null;
    }

    /** The current time in epoch milliseconds (Carbon's test clock included). */
    public static function nowMs(): int
    {
        return (int) now()->getPreciseTimestamp(3);
    }

    /**
     * The manifest entry of a tool in a page load's latest manifest, or null.
     *
     * @return array<string, mixed>|null
     */
    public static function toolEntry(?string $clientId, string $tool): ?array
    {
        $tools = $clientId === null ? null : DB::table('toolmark_pages')->where('client_id', $clientId)->value('tools');
        foreach (is_string($tools) ? (array) json_decode($tools, true) : [] as $entry) {
            if (is_array($entry) && ($entry['name'] ?? null) === $tool) {
                return $entry;
            }
        }

        return null;
    }

    /**
     * A tool's sensitive input paths in a page load: declared in its manifest entry
     * (`sensitivePaths`), or learned from a describe of it (`writeOnly` in its input schema).
     *
     * @return list<string>
     */
    public static function sensitivePaths(?string $clientId, string $tool): array
    {
        if ($clientId === null) {
            return [];
        }
        $described = json_decode((string) DB::table('toolmark_pages')->where('client_id', $clientId)->value('described'), true);
        $learned = is_array($described[$tool] ?? null) ? $described[$tool] : [];

        return Mask::joinPaths(Mask::declaredPaths(self::toolEntry($clientId, $tool)), array_values(array_filter($learned, 'is_string')));
    }

    /**
     * Dispatches the call's deadline job, delayed by the deadline. It needs a queue that honours
     * delays (database, Redis, SQS): the `sync` driver runs it at once and every call times out.
     */
    protected function scheduleDeadline(string $callId, int $deadlineMs): void
    {
        ExpireCall::dispatch($callId)->delay(now()->addMilliseconds($deadlineMs));
    }

    /**
     * Broadcasts one agent → page message on the conversation's private channel.
     *
     * @param array<string, mixed> $message
     */
    public function deliver(int $userId, int $conversationId, array $message): void
    {
        $this->events->dispatch(new ToolmarkMessage($userId, $conversationId, $message));
    }

    /** Fires one of the package's events (CallRequested, ConfirmationRequested, ConfirmationResolved, CallCompleted). */
    public function notify(object $event): void
    {
        $this->events->dispatch($event);
    }

    /** The user's current conversation (from the session), or null. */
    public function currentConversation(Request $request): ?Conversation
    {
        $user = $request->user();
        $id = $request->hasSession() ? $request->session()->get((string) config('toolmark.session_key')) : null;
        if ($user === null || $id === null) {
            return null;
        }
        $conversation = Conversation::query()->find($id);

        return $conversation !== null && $conversation->isOwnedBy($user->getAuthIdentifier()) ? $conversation : null;
    }

    /**
     * Starts a new conversation for the user and makes it the session's current one. A user has
     * at most `toolmark.limits.conversations_per_user` (default 1000, as @toolmark/server): one more
     * throws LimitExceeded `too_many_conversations` (rendered 429, no `Retry-After`) and creates
     * nothing; the user's existing conversations are kept.
     *
     * @throws LimitExceeded over the cap
     */
    public function startConversation(Authenticatable $user, ?Request $request = null): Conversation
    {
        $cap = config('toolmark.limits.conversations_per_user', 1000);
        if ($cap !== null && Conversation::query()->where('user_id', $user->getAuthIdentifier())->count() >= (int) $cap) {
            throw new LimitExceeded('too_many_conversations', "Too many conversations: at most {$cap} per user");
        }
        $conversation = new Conversation();
        $conversation->user_id = $user->getAuthIdentifier();
        $conversation->save();
        if ($request !== null && $request->hasSession()) {
            $request->session()->put((string) config('toolmark.session_key'), $conversation->id);
        }

        return $conversation;
    }

    /**
     * What `@toolmark/inertia` reads from the shared prop `toolmark`: user, conversation, channel,
     * the bridge URL and the broadcaster settings (no secret). The CSRF token travels as Laravel's
     * `XSRF-TOKEN` cookie, which the page sends back as `X-XSRF-TOKEN`. Null for a guest.
     *
     * @return array{userId: mixed, conversationId: int|null, channel: string|null, postUrl: string|null, broadcaster: array<string, mixed>}|null
     */
    public function sharedProps(Request $request): ?array
    {
        $user = $request->user();
        if ($user === null) {
            return null;
        }
        $conversation = $this->currentConversation($request);

        return [
            'userId' => $user->getAuthIdentifier(),
            'conversationId' => $conversation?->id,
            'channel' => $conversation === null ? null : Wire::NAMES['channelPrefix'].".{$user->getAuthIdentifier()}.{$conversation->id}",
            // The bridge route wherever it is registered (a prefix group with Route::toolmark() included).
            'postUrl' => $conversation === null || ! Route::has('toolmark.bridge') ? null
                : route('toolmark.bridge', ['conversation' => $conversation->id], false),
            'broadcaster' => (array) config('toolmark.broadcaster', []),
        ];
    }
}

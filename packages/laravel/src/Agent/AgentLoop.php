<?php

namespace Toolmark\Laravel\Agent;

use Illuminate\Support\Facades\DB;
use Illuminate\Support\Facades\Log;
use Illuminate\Support\Str;
use Toolmark\Laravel\Bridge;
use Toolmark\Laravel\Events\ToolmarkDelta;
use Toolmark\Laravel\Generated\Wire;
use Toolmark\Laravel\Llm;
use Toolmark\Laravel\Mask;
use Toolmark\Laravel\Models\Conversation;
use Toolmark\Laravel\PageContext;
use Toolmark\Laravel\Toolmark;

/**
 * The agent loop, one model request per step. Ordinary steps offer `page_call` (with the page's
 * latest manifest) and `page_describe`; the tool calls of a step go to the page and the step ends
 * (ContinueAgentTurn runs the next one when every call is answered). The follow-up step after a
 * `confirmed` offers no page tools, and any tool call the model makes anyway is dropped.
 *
 * With `toolmark.chat_events` on, the chat sees the step as it happens: a StreamingAgentModel's text
 * goes out in masked batches as `.toolmark.delta` (TextStream, `toolmark.stream`), ended by the
 * stored line with the same messageId, and each page call's part as `.toolmark.tool` (ToolParts).
 */
class AgentLoop
{
    /** The system prompt of ordinary steps (its rule about secrets is the protocol package's, as in @toolmark/server). */
    public const SYSTEM_PROMPT = Wire::AGENT_SYSTEM_PROMPT;

    /** The system prompt of the follow-up step after a confirmation. */
    public const FOLLOW_UP_PROMPT = Wire::FOLLOW_UP_SYSTEM_PROMPT;

    /** The chat line when the model cannot be reached (as the Node reference server says it). */
    public const MODEL_FAILED = 'The agent could not reach its model.';

    /** How many steps in a row may follow calls that were all answered without the page. */
    public const MAX_INLINE_STEPS = 2;

    private int $inlineSteps = 0;

    /** Built by the container with the bound AgentModel. */
    public function __construct(
        private readonly AgentModel $model,
        private readonly Toolmark $toolmark,
    ) {}

    /** Runs one step: asks the model, stores its reply (masked) and sends its tool calls to the page. */
    public function step(Conversation $conversation, bool $followUp = false): void
    {
        $page = $conversation->active_client_id === null ? null
            : DB::table('toolmark_pages')->where('client_id', $conversation->active_client_id)->first();
        $manifest = $page === null ? [] : json_decode($page->tools, true);
        $tools = $followUp ? [] : [Llm::pageCallTool($manifest), Llm::pageDescribeTool()];

        $known = self::turnSecrets($conversation);
        $stream = $this->textStream($conversation, $known, $followUp, $page, $manifest);
        $textStream = $stream['stream'] ?? null;
        $streamId = $stream['id'] ?? null;
        $system = $followUp ? self::FOLLOW_UP_PROMPT : self::SYSTEM_PROMPT;
        $history = $conversation->agentHistory(); // masked history, plus the current user text as typed
        // The page's readable context (the `context` extension), page data before the latest user message.
        $history = PageContext::into($history, $followUp ? null : PageContext::text($page));
        try {
            $reply = $textStream !== null && $this->model instanceof StreamingAgentModel
                ? $this->model->stream($system, $history, $tools, fn (string $delta) => $textStream->push($delta))
                : $this->model->complete($system, $history, $tools);
        } catch (\Throwable $error) {
            $textStream?->end();
            // The turn ends with a line in the chat (not in the model's history); the log gets the masked error.
            Log::warning('toolmark: the model request failed', ['conversation' => $conversation->id, 'error' => Mask::text($error->getMessage())]);
            // It ends the text streamed so far too (the same messageId).
            $conversation->messages()->create(['role' => 'assistant', 'text' => self::MODEL_FAILED, 'stream_id' => $streamId]);
            $this->endTurn($conversation);

            return;
        }
        $calls = $followUp ? [] : $reply['tool_calls'];
        // Values at the sensitive paths of this step's calls: masked in the stored call, and cut out
        // of everything the conversation stored (earlier lines included) and of the calls' results.
        $secrets = $known;
        $kept = [];
        foreach ($calls as $call) {
            $kept[] = $this->maskCall($conversation, $call, $secrets);
        }
        $forms = Mask::secretForms($secrets);
        $text = Mask::assistantText(Llm::cut($reply['text']), $forms);
        // The deltas add up to the stored text (the stored line ends them and wins anyway).
        $textStream?->finish($text);
        $conversation->messages()->create([
            'role' => 'assistant',
            'text' => $text,
            'agent' => ['role' => 'assistant', 'text' => $text, 'toolCalls' => Mask::value($kept, $forms)],
            'stream_id' => $streamId,
        ]);
        if (count($secrets) > count($known)) {
            $this->forget($conversation, $forms);
        }
        if ($calls === []) {
            $this->endTurn($conversation);

            return;
        }
        $sentAny = false;
        foreach ($calls as $i => $call) {
            $kind = match ($call['name']) {
                'page_call' => 'call',
                'page_describe' => 'describe',
                default => null,
            };
            $tool = $call['input']['tool'] ?? null;
            $input = is_array($call['input']['input'] ?? null) ? $call['input']['input'] : [];
            // The call as the chat shows it: its input as stored (masked at the tool's sensitive paths).
            $part = $kind === 'call' && is_string($tool)
                ? ToolParts::running((string) $call['id'], $tool, self::titleOf($manifest, $tool), is_array($kept[$i]['input']['input'] ?? null) ? $kept[$i]['input']['input'] : [], $forms)
                : null;
            if ($kind === 'call' && is_string($tool) && ! $this->toolmark->allows($conversation, $tool)) {
                $this->answer($conversation, $call['id'], $tool, Toolmark::NOT_ALLOWED, part: $part);

                continue;
            }
            if ($part !== null && $conversation->active_client_id !== null) {
                // Before the call goes out: the page (or a fake) may answer it at once.
                ToolParts::publish((int) $conversation->user_id, (int) $conversation->id, $part);
            }
            $sent = $kind !== null && is_string($tool)
                ? $this->toolmark->send($conversation, $call['id'], $kind, $tool, $input, $kind === 'call' ? $page?->rev : null, 'agent', $secrets, $part)
                : null;
            if ($sent === null) {
                $this->answer($conversation, $call['id'], (string) $tool, Toolmark::NO_PAGE, $kind ?? 'call', part: $part);
            }
            $sentAny = $sentAny || $sent !== null;
        }
        // Nothing went to the page (every call was refused by the Gate, or no page is connected):
        // no result will continue the turn, so the next step runs now and the model sees why.
        // When a call was sent, its result (or deadline) continues the turn instead.
        if (! $sentAny && $this->inlineSteps < self::MAX_INLINE_STEPS) {
            $this->inlineSteps++;
            $this->step($conversation->refresh());
        }
    }

    /**
     * The step's text stream and its messageId, or null when nothing is streamed (`toolmark.chat_events`
     * or `toolmark.stream.enabled` off). It masks with the turn's known secrets; when a tool of the page
     * has sensitive input paths (declared, or learned from a describe), it stops before the first word
     * of the user's message that the model may pass at one of them (TextStream::heldWords()), since
     * that value is known to be secret only once the model's call arrives, after its text.
     *
     * @param list<string> $known
     * @return array{id: string, stream: TextStream}|null
     */
    private function textStream(Conversation $conversation, array $known, bool $followUp, ?object $page, array $manifest): ?array
    {
        if (! config('toolmark.chat_events', true) || ! config('toolmark.stream.enabled', true) || ! $this->model instanceof StreamingAgentModel) {
            return null;
        }
        $held = [];
        if (! $followUp && $page !== null && self::sensitivePage($page, $manifest)) {
            $typed = $conversation->messages()->whereNotNull('secret_text')->orderByDesc('id')->first()?->secret_text;
            $held = is_string($typed) ? TextStream::heldWords($typed) : [];
        }
        $id = (string) Str::uuid();
        $userId = (int) $conversation->user_id;
        $conversationId = (int) $conversation->id;
        $stream = new TextStream(
            function (string $delta) use ($userId, $conversationId, $id): void {
                try {
                    event(new ToolmarkDelta($userId, $conversationId, $id, $delta));
                } catch (\Throwable $error) {
                    report($error); // only the live update is lost: the stored line carries the whole text
                }
            },
            $known,
            $held,
            (int) config('toolmark.stream.interval_ms', TextStream::INTERVAL_MS),
            (int) config('toolmark.stream.max_bytes', TextStream::MAX_BYTES),
        );

        return ['id' => $id, 'stream' => $stream];
    }

    /** True when a tool of the page load has sensitive input paths, declared in its manifest or learned from a describe. */
    private static function sensitivePage(object $page, array $manifest): bool
    {
        foreach ($manifest as $entry) {
            if (Mask::declaredPaths($entry) !== []) {
                return true;
            }
        }
        $described = json_decode((string) ($page->described ?? ''), true);
        foreach (is_array($described) ? $described : [] as $paths) {
            if (is_array($paths) && $paths !== []) {
                return true;
            }
        }

        return false;
    }

    /** The tool's title in the manifest, or null. */
    private static function titleOf(array $manifest, string $tool): ?string
    {
        foreach ($manifest as $entry) {
            if (is_array($entry) && ($entry['name'] ?? null) === $tool) {
                return is_string($entry['title'] ?? null) ? $entry['title'] : null;
            }
        }

        return null;
    }

    /**
     * The values at the sensitive paths of the running turn's calls (kept encrypted with each call
     * until the turn ends): later steps cut them out of what they store, as the first one did.
     *
     * @return list<string>
     */
    private static function turnSecrets(Conversation $conversation): array
    {
        $secrets = [];
        foreach (DB::table('toolmark_calls')->where('conversation_id', $conversation->id)->whereNotNull('secrets')->get() as $binding) {
            $secrets = [...$secrets, ...Bridge::secretsOf($binding)];
        }

        return array_values(array_unique($secrets));
    }

    /**
     * The turn is over: the user's text as typed and the turn's secrets are dropped, except those of a
     * call whose confirmation is still pending (its outcome is masked with them when it comes; see
     * Bridge::confirmed()).
     */
    private function endTurn(Conversation $conversation): void
    {
        $conversation->messages()->whereNotNull('secret_text')->update(['secret_text' => null]);
        DB::table('toolmark_calls')->where('conversation_id', $conversation->id)->whereNotNull('secrets')
            ->whereNotIn('id', DB::table('toolmark_confirmations')->where('conversation_id', $conversation->id)->where('state', 'pending')->select('call_id'))
            ->update(['secrets' => null]);
    }

    /**
     * The call as it may be stored: `page_call` input with `[redacted]` at the tool's sensitive
     * paths (declared in its manifest entry, or learned from a describe); adds their values to `$secrets`.
     *
     * @param array{id: string, name: string, input: array<string, mixed>} $call
     * @param list<string> $secrets
     * @return array{id: string, name: string, input: array<string, mixed>}
     */
    private function maskCall(Conversation $conversation, array $call, array &$secrets): array
    {
        $tool = $call['input']['tool'] ?? null;
        if ($call['name'] !== 'page_call' || ! is_string($tool) || ! is_array($call['input']['input'] ?? null)) {
            return $call;
        }
        $paths = Toolmark::sensitivePaths($conversation->active_client_id, $tool);
        if ($paths === []) {
            return $call;
        }
        $secrets = array_values(array_unique([...$secrets, ...Mask::secretsAt($call['input']['input'], $paths)]));
        $call['input']['input'] = Mask::atPaths($call['input']['input'], $paths);

        return $call;
    }

    /**
     * Once the step knows values to be secret, cuts them (and what the heuristics left of them, such
     * as `**** 4242`) out of every stored line of the conversation. The user's text as typed stays
     * encrypted for the rest of the turn.
     *
     * @param list<string> $forms
     */
    private function forget(Conversation $conversation, array $forms): void
    {
        if ($forms === []) {
            return;
        }
        foreach ($conversation->messages()->get() as $line) {
            $text = Mask::scrub((string) $line->text, $forms);
            $agent = $line->agent === null ? null : Mask::scrubValue($line->agent, $forms);
            if ($text !== $line->text || $agent !== $line->agent) {
                $line->forceFill(['text' => $text, 'agent' => $agent])->save();
            }
        }
        foreach (DB::table('toolmark_confirmations')->where('conversation_id', $conversation->id)->get() as $binding) {
            $summary = Mask::scrub((string) $binding->summary, $forms);
            if ($summary !== $binding->summary) {
                DB::table('toolmark_confirmations')->where('confirm_id', $binding->confirm_id)->update(['summary' => $summary]);
            }
        }
    }

    /**
     * Appends one tool result to the history (masked again); wrapped as untrusted page data when the
     * tool was untrustedContent when the call was made. A describe is labelled `page_describe`. A
     * result whose JSON is over Wire::MAX_PROVIDER_TEXT code units is replaced by an error that says so.
     * A page call's line keeps its part: `$part` in its answered state as given, or a running part
     * moved to the result here (and broadcast) when the call never reached the page.
     *
     * @param array<string, mixed> $result
     * @param 'call'|'describe' $kind
     * @param array<string, string>|null $part
     * @param bool $structured the tool is `structured` in the page load that answered: its `ok` data goes with a short note (Llm::modelResult)
     */
    public function answer(Conversation $conversation, string $toolCallId, string $tool, array $result, string $kind = 'call', bool $untrusted = false, ?array $part = null, bool $structured = false): void
    {
        $name = $kind === 'describe' ? 'page_describe' : 'page_call';
        $result = Mask::result($result, $kind);
        if ($part !== null && ($part['state'] ?? null) === 'running') {
            $part = ToolParts::outcome($part, $result, false);
            ToolParts::publish((int) $conversation->user_id, (int) $conversation->id, $part);
        }
        $conversation->messages()->create([
            'part' => $part,
            'role' => 'tool',
            'text' => Mask::text(Llm::cut("{$name} {$tool} → {$result['status']}")),
            'agent' => [
                'role' => 'tool',
                'toolCallId' => $toolCallId,
                'name' => $name,
                // Over Wire::MAX_PROVIDER_TEXT: an error result the model can read, stored as such.
                'content' => Llm::boundContent(Llm::json(Llm::modelResult($result, $kind === 'call' && $structured, $untrusted))),
            ],
        ]);
    }
}

<?php

namespace Toolmark\Laravel\Testing;

use PHPUnit\Framework\Assert;
use Toolmark\Laravel\Bridge;
use Toolmark\Laravel\Events\ConfirmationRequested;
use Toolmark\Laravel\Llm;
use Toolmark\Laravel\Models\Conversation;
use Toolmark\Laravel\Toolmark;

/**
 * `Toolmark::fake()` for an app's tests. Calls are bound as usual but nothing is broadcast and no
 * deadline is scheduled; each call is recorded. `respond()` makes the fake answer a tool the way a
 * page would, through the real bridge checks (so a needs_confirmation binds its confirmId and the
 * agent loop goes on). Then assert with `assertToolCalled()` and `assertConfirmationRequested()`.
 */
class ToolmarkFake extends Toolmark
{
    /** @var list<array{conversation: int, id: string, kind: string, tool: string, input: array<string, mixed>, origin: string}> */
    private array $calls = [];

    /** @var list<array<string, mixed>> */
    private array $messages = [];

    /** @var list<ConfirmationRequested> */
    private array $confirmations = [];

    /** @var array<string, array<string, mixed>|callable> */
    private array $responses = [];

    /**
     * Answers every later call of this tool with this result (or the callable's result, given the
     * input), as the page would. For a confirmation: `['status' => 'needs_confirmation',
     * 'confirmId' => 'c1', 'summary' => '…']`.
     *
     * @param array<string, mixed>|callable(array<string, mixed>): array<string, mixed> $result
     */
    public function respond(string $tool, array|callable $result): static
    {
        $this->responses[$tool] = $result;

        return $this;
    }

    /** Binds and records the call; answers it at once when `respond()` scripted its tool. */
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
        $id = parent::send($conversation, $toolCallId, $kind, $tool, $input, $rev, $origin, $secrets, $part);
        if ($id === null) {
            return null;
        }
        $this->calls[] = ['conversation' => (int) $conversation->id, 'id' => $id, 'kind' => $kind, 'tool' => $tool, 'input' => $input, 'origin' => $origin];
        $response = $this->responses[$tool] ?? null;
        if ($response !== null) {
            $result = is_callable($response) ? $response($input) : $response;
            app(Bridge::class)->handle($conversation, (int) $conversation->user_id, Llm::json([
                'protocol' => 1,
                'type' => 'result',
                'clientId' => $conversation->active_client_id,
                'id' => $id,
                'result' => $result,
            ]));
        }

        return $id;
    }

    /** Records the agent → page message instead of broadcasting it. */
    public function deliver(int $userId, int $conversationId, array $message): void
    {
        $this->messages[] = $message;
    }

    /** Records confirmation requests, then fires the event as usual. */
    public function notify(object $event): void
    {
        if ($event instanceof ConfirmationRequested) {
            $this->confirmations[] = $event;
        }
        parent::notify($event);
    }

    protected function scheduleDeadline(string $callId, int $deadlineMs): void
    {
        // Time does not pass in a test: no deadline job.
    }

    /** @return list<array{conversation: int, id: string, kind: string, tool: string, input: array<string, mixed>, origin: string}> every call and describe sent, in order */
    public function calls(): array
    {
        return $this->calls;
    }

    /** @return list<array<string, mixed>> every agent → page message that would have been broadcast */
    public function messages(): array
    {
        return $this->messages;
    }

    /**
     * Asserts the tool was called (a `call`, not a describe), optionally with exactly this input
     * or an input the callable accepts.
     *
     * @param array<string, mixed>|callable(array<string, mixed>): bool|null $input
     */
    public function assertToolCalled(string $tool, array|callable|null $input = null): void
    {
        $matching = array_filter($this->calls, fn (array $c): bool => $c['kind'] === 'call' && $c['tool'] === $tool
            && ($input === null || (is_callable($input) ? (bool) $input($c['input']) : $c['input'] == $input)));
        $called = array_map(fn (array $c): string => $c['tool'], array_filter($this->calls, fn (array $c): bool => $c['kind'] === 'call'));
        Assert::assertNotEmpty(
            $matching,
            $input === null
                ? "The page tool [{$tool}] was not called. Called: [".implode(', ', $called).']'
                : "The page tool [{$tool}] was not called with the expected input.",
        );
    }

    /** Asserts the tool was never called. */
    public function assertToolNotCalled(string $tool): void
    {
        $matching = array_filter($this->calls, fn (array $c): bool => $c['kind'] === 'call' && $c['tool'] === $tool);
        Assert::assertEmpty($matching, "The page tool [{$tool}] was called.");
    }

    /** Asserts no call or describe was sent. */
    public function assertNothingCalled(): void
    {
        Assert::assertSame([], $this->calls, 'Page tools were called: ['.implode(', ', array_column($this->calls, 'tool')).']');
    }

    /** Asserts a page asked the user to confirm (this tool, when given). */
    public function assertConfirmationRequested(?string $tool = null): void
    {
        $matching = array_filter($this->confirmations, fn (ConfirmationRequested $c): bool => $tool === null || $c->tool === $tool);
        Assert::assertNotEmpty($matching, $tool === null ? 'No confirmation was requested.' : "No confirmation was requested for [{$tool}].");
    }
}

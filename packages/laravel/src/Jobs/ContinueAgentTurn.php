<?php

namespace Toolmark\Laravel\Jobs;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Support\Facades\DB;
use Toolmark\Laravel\Agent\AgentLoop;
use Toolmark\Laravel\Models\Conversation;

/**
 * Appends one tool result (or timeout) to the history and runs the next agent step once every call
 * of the step has its answer. The result it carries is already masked (the queue stores it). The
 * conversation row lock makes the "all answered" check race-free when results arrive together.
 */
final class ContinueAgentTurn implements ShouldQueue
{
    use Dispatchable;
    use InteractsWithQueue;
    use Queueable;

    /**
     * @param array<string, mixed> $result the masked result
     * @param 'call'|'describe' $kind
     * @param bool $untrusted whether the tool was untrustedContent when the call was made
     * @param array<string, string>|null $part the agent's page call in its answered state (ToolParts), for its tool line
     * @param bool $structured whether the tool is `structured` (declares an output schema) in the page load that answered
     */
    public function __construct(
        public readonly int $conversationId,
        public readonly string $toolCallId,
        public readonly string $tool,
        public readonly array $result,
        public readonly string $kind = 'call',
        public readonly bool $untrusted = false,
        public readonly ?array $part = null,
        public readonly bool $structured = false,
    ) {}

    /** Appends the answer, then runs the next step if no call of the agent is pending. */
    public function handle(AgentLoop $loop): void
    {
        $ready = DB::transaction(function () use ($loop): ?Conversation {
            $conversation = Conversation::query()->whereKey($this->conversationId)->lockForUpdate()->first();
            if ($conversation === null) {
                return null;
            }
            $loop->answer($conversation, $this->toolCallId, $this->tool, $this->result, $this->kind, $this->untrusted, $this->part ?? null, $this->structured ?? false); // a job queued before parts (or this mark) existed has none
            $pending = DB::table('toolmark_calls')
                ->where('conversation_id', $conversation->id)
                ->where('origin', 'agent')
                ->where('state', 'pending')
                ->exists();

            return $pending ? null : $conversation;
        });
        if ($ready !== null) {
            $loop->step($ready);
        }
    }
}

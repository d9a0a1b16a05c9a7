<?php

namespace App\Jobs;

use App\Models\Conversation;
use App\Toolmark\AgentLoop;
use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Support\Facades\DB;

final class ContinueAgentTurn implements ShouldQueue
{
    use Dispatchable;
    use InteractsWithQueue;
    use Queueable;

    /** @param array<string, mixed> $result */
    public function __construct(
        public readonly int $conversationId,
        public readonly string $toolCallId,
        public readonly string $tool,
        public readonly array $result,
    ) {}

    public function handle(AgentLoop $loop): void
    {
        $ready = DB::transaction(function () use ($loop): ?Conversation {
            $conversation = Conversation::query()->whereKey($this->conversationId)->lockForUpdate()->first();
            if ($conversation === null) {
                return null;
            }
            $loop->answer($conversation, $this->toolCallId, $this->tool, $this->result);
            $pending = DB::table('toolmark_calls')
                ->where('conversation_id', $conversation->id)
                ->where('state', 'pending')
                ->exists();

            return $pending ? null : $conversation;
        });
        if ($ready !== null) {
            $loop->step($ready);
        }
    }
}

final class RunFollowUpTurn implements ShouldQueue
{
    use Dispatchable;
    use InteractsWithQueue;
    use Queueable;

    public function __construct(public readonly int $conversationId) {}

    public function handle(AgentLoop $loop): void
    {
        $conversation = Conversation::query()->find($this->conversationId);
        if ($conversation !== null) {
            $loop->step($conversation, followUp: true);
        }
    }
}

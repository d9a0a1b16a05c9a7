<?php

namespace Toolmark\Laravel\Jobs;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Toolmark\Laravel\Agent\AgentLoop;
use Toolmark\Laravel\Models\Conversation;

/** After an accepted `confirmed`: exactly one agent step without page tools, to acknowledge the outcome. */
final class RunFollowUpTurn implements ShouldQueue
{
    use Dispatchable;
    use InteractsWithQueue;
    use Queueable;

    /** The conversation whose confirmation was answered. */
    public function __construct(public readonly int $conversationId) {}

    /** Runs the one follow-up step (no page tools); nothing if the conversation is gone. */
    public function handle(AgentLoop $loop): void
    {
        $conversation = Conversation::query()->find($this->conversationId);
        if ($conversation !== null) {
            $loop->step($conversation, true);
        }
    }
}

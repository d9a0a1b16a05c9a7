<?php

namespace App\Jobs;

use App\Events\ToolmarkMessage;
use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Support\Facades\DB;

final class ExpireToolmarkCall implements ShouldQueue
{
    use Dispatchable;
    use InteractsWithQueue;
    use Queueable;

    public function __construct(public readonly string $callId) {}

    public function handle(): void
    {
        $binding = DB::transaction(function () {
            $binding = DB::table('toolmark_calls')->where('id', $this->callId)->lockForUpdate()->first();
            if ($binding === null || $binding->state !== 'pending') {
                return null;
            }
            DB::table('toolmark_calls')->where('id', $this->callId)->update(['state' => 'timed_out', 'updated_at' => now()]);

            return $binding;
        });
        if ($binding === null) {
            return;
        }
        ToolmarkMessage::dispatch((int) $binding->user_id, (int) $binding->conversation_id, [
            'protocol' => 1,
            'type' => 'cancel',
            'clientId' => $binding->client_id,
            'id' => $binding->id,
        ]);
        ContinueAgentTurn::dispatch((int) $binding->conversation_id, $binding->tool_call_id, $binding->tool, [
            'status' => 'error',
            'message' => 'Timed out: the page did not answer in time',
        ]);
    }
}

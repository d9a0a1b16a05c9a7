<?php

namespace Toolmark\Laravel\Jobs;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Illuminate\Support\Facades\DB;
use Toolmark\Laravel\Bridge;
use Toolmark\Laravel\Events\CallCompleted;
use Toolmark\Laravel\Toolmark;

/**
 * A call's deadline, dispatched with the call and delayed by `toolmark.deadline_ms`. If the call is
 * still pending it becomes timed_out (a later result is rejected as late), the page gets `cancel`,
 * and the agent gets the timeout result. The bridge compares `deadline_at` too, so a slow queue
 * never lets a late result in.
 */
final class ExpireCall implements ShouldQueue
{
    use Dispatchable;
    use InteractsWithQueue;
    use Queueable;

    /** The call whose deadline this is. */
    public function __construct(public readonly string $callId) {}

    /** Times the call out if it is still pending; does nothing otherwise (a retried job included). */
    public function handle(Toolmark $toolmark): void
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
        $toolmark->deliver((int) $binding->user_id, (int) $binding->conversation_id, [
            'protocol' => 1,
            'type' => 'cancel',
            'clientId' => $binding->client_id,
            'id' => $binding->id,
        ]);
        if ($binding->origin === 'agent') {
            ContinueAgentTurn::dispatch((int) $binding->conversation_id, $binding->tool_call_id, $binding->tool, Bridge::TIMED_OUT);
        }
        $toolmark->notify(new CallCompleted((int) $binding->conversation_id, $binding->id, $binding->tool, Bridge::TIMED_OUT, $binding->origin));
    }
}

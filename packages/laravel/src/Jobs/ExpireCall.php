<?php

namespace Toolmark\Laravel\Jobs;

use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Toolmark\Laravel\Bridge;

/**
 * A call's deadline, dispatched with the call and delayed by `toolmark.deadline_ms`. If the call is
 * still pending past its stored deadline (milliseconds) it becomes timed_out (a later result is
 * rejected as late), the page gets `cancel`, and the agent gets the timeout result. Queues count
 * delays in whole seconds, so the job can run up to a second early: then it dispatches itself
 * again for the time left. The bridge compares the deadline too, so a slow queue never lets a late
 * result in.
 */
final class ExpireCall implements ShouldQueue
{
    use Dispatchable;
    use InteractsWithQueue;
    use Queueable;

    /** The call whose deadline this is. */
    public function __construct(public readonly string $callId) {}

    /** Times the call out if it is still pending and due; runs again later if it is not due yet. */
    public function handle(Bridge $bridge): void
    {
        $left = $bridge->expire($this->callId);
        if ($left > 0) {
            // Whole seconds, rounded up: an early run never repeats at once.
            self::dispatch($this->callId)->delay(now()->addSeconds((int) ceil($left / 1000)));
        }
    }
}

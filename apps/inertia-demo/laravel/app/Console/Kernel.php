<?php

namespace App\Console;

use Illuminate\Console\Scheduling\Schedule;
use Illuminate\Foundation\Console\Kernel as ConsoleKernel;
use Illuminate\Support\Facades\DB;

final class Kernel extends ConsoleKernel
{
    /** Laravel 8's place for the guide's routes/console.php schedule: expire confirmIds of pages that are gone. */
    protected function schedule(Schedule $schedule): void
    {
        $schedule->call(function (): void {
            DB::table('toolmark_confirmations')
                ->where('state', 'pending')
                ->where('created_at', '<', now()->subMinutes(11))
                ->update(['state' => 'expired', 'updated_at' => now()]);
        })->everyMinute();
    }
}

<?php

namespace App\Console;

use Illuminate\Console\Scheduling\Schedule;
use Illuminate\Foundation\Console\Kernel as ConsoleKernel;

final class Kernel extends ConsoleKernel
{
    /** Expire confirmations of pages that are gone, and delete old calls (toolmark/laravel's command). */
    protected function schedule(Schedule $schedule): void
    {
        $schedule->command('toolmark:prune')->everyMinute();
    }
}

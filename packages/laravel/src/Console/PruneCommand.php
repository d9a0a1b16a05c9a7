<?php

namespace Toolmark\Laravel\Console;

use Illuminate\Console\Command;
use Illuminate\Support\Facades\DB;

/**
 * `php artisan toolmark:prune`: expires pending confirmations older than
 * `toolmark.confirm_expiry_minutes` (none when it is null), and deletes answered or
 * timed-out calls, used or expired confirmations and decided or dropped decisions older than
 * `toolmark.prune_calls_after_days`. Pending calls and pending decisions are never deleted (a
 * pending decision past its lifetime is dropped, and the agent told, by the next page load's
 * manifest). Schedule it every minute.
 */
final class PruneCommand extends Command
{
    /** @var string */
    protected $signature = 'toolmark:prune {--days= : Delete finished calls older than this many days (default: the config)}';

    /** @var string */
    protected $description = 'Expire old confirmations and delete old Toolmark calls';

    /** Exit 0 with the counts, 1 for a bad --days. */
    public function handle(): int
    {
        $days = $this->option('days') ?? config('toolmark.prune_calls_after_days', 7);
        if (! is_numeric($days) || (int) $days < 0) {
            $this->error('--days must be a whole number of days, 0 or more');

            return self::FAILURE;
        }
        $minutes = config('toolmark.confirm_expiry_minutes');
        $expired = $minutes === null ? 0 : DB::table('toolmark_confirmations')
            ->where('state', 'pending')
            ->where('created_at', '<', now()->subSeconds((int) round(60 * (float) $minutes)))
            ->update(['state' => 'expired', 'updated_at' => now()]);
        $before = now()->subDays((int) $days);
        $calls = DB::table('toolmark_calls')
            ->whereIn('state', ['answered', 'timed_out'])
            ->where('updated_at', '<', $before)
            ->delete();
        $confirmations = DB::table('toolmark_confirmations')
            ->whereIn('state', ['used', 'expired'])
            ->where('updated_at', '<', $before)
            ->delete();
        $decisions = DB::table('toolmark_decisions')
            ->whereIn('state', ['decided', 'dropped'])
            ->where('updated_at', '<', $before)
            ->delete();
        $this->info("Expired {$expired} confirmations; deleted {$calls} calls, {$confirmations} confirmations and {$decisions} decisions.");

        return self::SUCCESS;
    }
}

<?php

namespace Toolmark\Laravel\Console;

use Illuminate\Console\Command;
use Toolmark\Laravel\ToolmarkServiceProvider;

/**
 * `php artisan toolmark:install`: publishes config/toolmark.php and the migrations, says what the
 * app still lacks (a broadcaster key, a queue that honours delays), then prints the page's wiring.
 * It never needs the broadcaster or the queue to work itself.
 */
final class InstallCommand extends Command
{
    /** @var string */
    protected $signature = 'toolmark:install {--force : Overwrite files published before}';

    /** @var string */
    protected $description = 'Publish the Toolmark config and migrations and print the Echo and Inertia wiring';

    /** Publishes (keeping edited files unless --force), reports what to set, prints the next steps; exit 0. */
    public function handle(): int
    {
        foreach (['toolmark-config', 'toolmark-migrations'] as $tag) {
            $this->call('vendor:publish', ['--tag' => $tag, '--force' => (bool) $this->option('force')]);
        }
        $bridge = (string) config('toolmark.routes.bridge');
        $this->line('');
        foreach ($this->problems() as $problem) {
            $this->warn($problem);
        }
        $this->info('Toolmark is installed. Next:');
        $this->line('1. The jobs table for the queue (skip if database/migrations has one), then migrate:');
        $this->line('       php artisan queue:table   # make:queue-table on Laravel 11+');
        $this->line('       php artisan migrate');
        $this->line('2. Share the bridge settings in app/Http/Middleware/HandleInertiaRequests.php, share():');
        $this->line("       'toolmark' => fn () => \\Toolmark\\Laravel\\Facades\\Toolmark::sharedProps(\$request),");
        $this->line('   (without Inertia, render Toolmark::sharedProps($request) into your Blade layout as JSON)');
        $this->line('   and start a conversation after sign-in: Toolmark::startConversation($user, $request);');
        $this->line('3. Enable broadcasting (Reverb or Pusher) and Broadcast::routes(); run a queue worker');
        $this->line('   that honours delays (php artisan queue:work): the call deadlines are delayed jobs.');
        $this->line('4. On the page (resources/js/app.tsx), bind the registry to Inertia with the Echo bridge:');
        $this->line("       import { router } from '@inertiajs/react'");
        $this->line("       import { bindInertia } from '@toolmark/inertia'");
        $this->line("       import Echo from 'laravel-echo'");
        $this->line("       import Pusher from 'pusher-js'");
        $this->line('       const inertia = bindInertia(tm, {');
        $this->line('         router,');
        $this->line("         echo: { echo: (p) => new Echo({ broadcaster: 'reverb', ...p.broadcaster, Pusher }) },");
        $this->line('       })');
        $this->line("   The page listens on private-toolmark.{user}.{conversation} and POSTs to /{$bridge}.");

        return self::SUCCESS;
    }

    /** @return list<string> what the app still has to set before pages get calls */
    private function problems(): array
    {
        $problems = [];
        $default = config('broadcasting.default');
        $connection = (array) config("broadcasting.connections.{$default}", []);
        $driver = $connection['driver'] ?? null;
        if ($default === null || in_array($driver, [null, 'log', 'null'], true)) {
            $problems[] = 'Broadcasting is off (BROADCAST_DRIVER, BROADCAST_CONNECTION on Laravel 11+, is '
                .var_export($default, true).'): set it to pusher or reverb, or pages get no calls.';
        } elseif (in_array($driver, ['pusher', 'reverb'], true) && (string) ($connection['key'] ?? '') === '') {
            $prefix = $driver === 'reverb' ? 'REVERB' : 'PUSHER';
            $problems[] = "Broadcasting uses {$driver} but {$prefix}_APP_KEY is not set: set {$prefix}_APP_ID, {$prefix}_APP_KEY and "
                ."{$prefix}_APP_SECRET in .env (and {$prefix}_HOST, {$prefix}_PORT, {$prefix}_SCHEME for a server of your own).";
        }
        if (ToolmarkServiceProvider::$broadcastProblem !== null) {
            $problems[] = 'The broadcaster could not be built: '.ToolmarkServiceProvider::$broadcastProblem;
        }
        if (config('queue.connections.'.config('queue.default').'.driver') === 'sync') {
            $problems[] = 'QUEUE_CONNECTION is sync: every call would time out at once. Use database (with the jobs table) or redis.';
        }

        return $problems;
    }
}

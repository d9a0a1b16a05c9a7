<?php

namespace Toolmark\Laravel\Console;

use Illuminate\Console\Command;

/** `php artisan toolmark:install`: publishes config/toolmark.php and the migrations, then prints the page's wiring. */
final class InstallCommand extends Command
{
    /** @var string */
    protected $signature = 'toolmark:install {--force : Overwrite files published before}';

    /** @var string */
    protected $description = 'Publish the Toolmark config and migrations and print the Echo and Inertia wiring';

    /** Publishes (keeping edited files unless --force) and prints the next steps; exit 0. */
    public function handle(): int
    {
        foreach (['toolmark-config', 'toolmark-migrations'] as $tag) {
            $this->call('vendor:publish', ['--tag' => $tag, '--force' => (bool) $this->option('force')]);
        }
        $bridge = (string) config('toolmark.routes.bridge');
        $this->line('');
        $this->info('Toolmark is installed. Next:');
        $this->line('1. php artisan migrate');
        $this->line('2. Share the bridge settings in app/Http/Middleware/HandleInertiaRequests.php, share():');
        $this->line("       'toolmark' => fn () => \\Toolmark\\Laravel\\Facades\\Toolmark::sharedProps(\$request),");
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
}

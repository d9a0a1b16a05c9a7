<?php

namespace Toolmark\Laravel\Tests\Feature;

use Illuminate\Support\Facades\Artisan;
use Toolmark\Laravel\Tests\TestCase;
use Toolmark\Laravel\ToolmarkServiceProvider;

/**
 * A new app before its broadcaster is set up: the default Pusher connection without
 * PUSHER_APP_KEY cannot be built. The app still boots and `toolmark:install` says what to set.
 */
final class InstallWithoutBroadcasterTest extends TestCase
{
    protected function config(): array
    {
        return [
            'broadcasting.default' => 'pusher',
            'broadcasting.connections.pusher' => ['driver' => 'pusher', 'key' => null, 'secret' => null, 'app_id' => null, 'options' => []],
        ];
    }

    public function test_install_does_not_crash_and_names_what_to_set(): void
    {
        $this->assertNotNull(ToolmarkServiceProvider::$broadcastProblem, 'the broadcaster could not be built at boot');
        $base = sys_get_temp_dir().'/toolmark-install-'.bin2hex(random_bytes(4));
        mkdir("{$base}/config", 0777, true);
        mkdir("{$base}/database/migrations", 0777, true);
        $this->app->setBasePath($base);
        (new ToolmarkServiceProvider($this->app))->offerPublishing();
        try {
            $this->assertSame(0, $this->artisan('toolmark:install'));
            $output = Artisan::output();
            $this->assertStringContainsString('PUSHER_APP_KEY is not set', $output);
            $this->assertStringContainsString('PUSHER_APP_SECRET', $output);
            $this->assertStringContainsString('php artisan queue:table', $output);
        } finally {
            exec('rm -rf '.escapeshellarg($base));
        }
    }
}

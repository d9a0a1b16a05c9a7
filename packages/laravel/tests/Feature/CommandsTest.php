<?php

namespace Toolmark\Laravel\Tests\Feature;

use Illuminate\Support\Facades\Artisan;
use Illuminate\Support\Facades\DB;
use Illuminate\Support\Str;
use Toolmark\Laravel\Tests\TestCase;
use Toolmark\Laravel\ToolmarkServiceProvider;

/** `php artisan toolmark:install` and `php artisan toolmark:prune`. */
final class CommandsTest extends TestCase
{
    public function test_install_publishes_the_config_and_the_migrations_and_prints_the_page_wiring(): void
    {
        $base = sys_get_temp_dir().'/toolmark-install-'.bin2hex(random_bytes(4));
        mkdir("{$base}/config", 0777, true);
        mkdir("{$base}/database/migrations", 0777, true);
        $this->app->setBasePath($base);
        (new ToolmarkServiceProvider($this->app))->offerPublishing(); // into the new base path
        try {
            $this->assertSame(0, $this->artisan('toolmark:install'));
            $output = Artisan::output();
            $this->assertFileEquals(__DIR__.'/../../config/toolmark.php', "{$base}/config/toolmark.php");
            $this->assertFileEquals(
                __DIR__.'/../../database/migrations/2026_01_01_000000_create_toolmark_tables.php',
                "{$base}/database/migrations/2026_01_01_000000_create_toolmark_tables.php",
            );
            $this->assertStringContainsString("'toolmark' => fn () => \\Toolmark\\Laravel\\Facades\\Toolmark::sharedProps(\$request),", $output);
            $this->assertStringContainsString("const inertia = bindInertia(tm, {", $output);
            $this->assertStringContainsString('php artisan queue:work', $output);

            // Run again, an edited config stays unless --force.
            file_put_contents("{$base}/config/toolmark.php", "<?php return [];\n");
            $this->assertSame(0, $this->artisan('toolmark:install'));
            $this->assertSame("<?php return [];\n", file_get_contents("{$base}/config/toolmark.php"));
            $this->assertSame(0, $this->artisan('toolmark:install', ['--force' => true]));
            $this->assertFileEquals(__DIR__.'/../../config/toolmark.php', "{$base}/config/toolmark.php");
        } finally {
            foreach (["{$base}/config/toolmark.php", ...glob("{$base}/database/migrations/*.php")] as $file) {
                @unlink($file);
            }
            @rmdir("{$base}/database/migrations");
            @rmdir("{$base}/database");
            @rmdir("{$base}/config");
            @rmdir($base);
        }
    }

    public function test_prune_expires_old_confirmations_and_deletes_old_finished_calls_only(): void
    {
        $ada = $this->user();
        $chat = $this->conversation($ada, null);
        $call = function (string $state, int $daysAgo) use ($ada, $chat): string {
            $id = (string) Str::uuid();
            DB::table('toolmark_calls')->insert([
                'id' => $id, 'user_id' => $ada->id, 'conversation_id' => $chat->id, 'client_id' => 'p', 'kind' => 'call',
                'tool' => 't', 'tool_call_id' => 'tc', 'deadline_at' => now()->subDays($daysAgo), 'state' => $state,
                'created_at' => now()->subDays($daysAgo), 'updated_at' => now()->subDays($daysAgo),
            ]);

            return $id;
        };
        $confirmation = function (string $id, string $state, int $minutesAgo) use ($ada, $chat): void {
            DB::table('toolmark_confirmations')->insert([
                'confirm_id' => $id, 'user_id' => $ada->id, 'conversation_id' => $chat->id, 'client_id' => 'p', 'call_id' => (string) Str::uuid(),
                'tool_call_id' => 'tc', 'tool' => 't', 'summary' => '', 'state' => $state,
                'created_at' => now()->subMinutes($minutesAgo), 'updated_at' => now()->subMinutes($minutesAgo),
            ]);
        };
        $keep = [$call('answered', 1), $call('pending', 30), $call('timed_out', 6)];
        $call('answered', 8);
        $call('timed_out', 30);
        $confirmation('fresh', 'pending', 5);
        $confirmation('stale', 'pending', 12);
        $confirmation('old-used', 'used', 60 * 24 * 8);
        $confirmation('recent-used', 'used', 60);
        $decision = function (string $toolCallId, string $state, int $daysAgo) use ($ada, $chat): void {
            DB::table('toolmark_decisions')->insert([
                'user_id' => $ada->id, 'conversation_id' => $chat->id, 'tool_call_id' => $toolCallId, 'tool' => 't', 'entry' => '{}',
                'state' => $state, 'created_at' => now()->subDays($daysAgo), 'updated_at' => now()->subDays($daysAgo),
            ]);
        };
        $decision('old-decided', 'decided', 8);
        $decision('old-pending', 'pending', 8);
        $decision('recent-dropped', 'dropped', 1);

        $this->assertSame(0, $this->artisan('toolmark:prune'));
        $this->assertStringContainsString('Expired 1 confirmations; deleted 2 calls, 1 confirmations and 1 decisions.', Artisan::output());
        $this->assertEqualsCanonicalizing($keep, DB::table('toolmark_calls')->pluck('id')->all());
        $this->assertSame(
            ['fresh' => 'pending', 'recent-used' => 'used', 'stale' => 'expired'],
            DB::table('toolmark_confirmations')->orderBy('confirm_id')->pluck('state', 'confirm_id')->all(),
        );
        $this->assertSame(['old-pending', 'recent-dropped'], DB::table('toolmark_decisions')->orderBy('tool_call_id')->pluck('tool_call_id')->all(), 'pending decisions are never deleted');

        // Without a server-side lifetime nothing pending expires.
        config(['toolmark.confirm_expiry_minutes' => null]);
        $confirmation('older', 'pending', 60);
        $this->assertSame(0, $this->artisan('toolmark:prune'));
        $this->assertSame('pending', DB::table('toolmark_confirmations')->where('confirm_id', 'older')->value('state'));

        $this->assertSame(0, $this->artisan('toolmark:prune', ['--days' => 0]));
        $this->assertSame(1, DB::table('toolmark_calls')->count(), 'pending calls are never deleted');
        $this->assertSame(1, $this->artisan('toolmark:prune', ['--days' => 'soon']));
        $this->assertStringContainsString('--days must be a whole number of days, 0 or more', Artisan::output());
    }
}

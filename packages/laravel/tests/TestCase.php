<?php

namespace Toolmark\Laravel\Tests;

use Illuminate\Contracts\Console\Kernel as ConsoleKernel;
use Illuminate\Contracts\Debug\ExceptionHandler;
use Illuminate\Contracts\Http\Kernel as HttpKernelContract;
use Illuminate\Database\Schema\Blueprint;
use Illuminate\Foundation\Application;
use Illuminate\Foundation\Bootstrap\LoadConfiguration;
use Illuminate\Foundation\Exceptions\Handler;
use Illuminate\Foundation\Testing\TestCase as LaravelTestCase;
use Illuminate\Support\Facades\DB;
use Illuminate\Support\Facades\Schema;
use Illuminate\Testing\TestResponse;
use Toolmark\Laravel\Models\Conversation;
use Toolmark\Laravel\Tests\App\ConsoleKernel as AppConsoleKernel;
use Toolmark\Laravel\Tests\App\HttpKernel;
use Toolmark\Laravel\Tests\App\RecordingBroadcaster;
use Toolmark\Laravel\Tests\App\User;

/**
 * TEST BASE (a stand-in for orchestra/testbench, which is Composer-only): boots a Laravel
 * Application from tests/App the way apps/inertia-demo/laravel/bootstrap does — the app's config,
 * an HTTP kernel with the `web` group (session, CSRF) and `auth`, SQLite in memory, and a
 * broadcaster that records what it sends and authorizes private channels like Pusher does. Then
 * it runs the migrations (a `users` table first, then the package's).
 */
abstract class TestCase extends LaravelTestCase
{
    /** Artisan's output checks need Mockery (Composer-only): commands print to a buffer instead (Artisan::output()). */
    public $mockConsoleOutput = false;

    protected RecordingBroadcaster $broadcasts;

    public function createApplication(): Application
    {
        $storage = sys_get_temp_dir().'/toolmark-laravel-tests-'.getmypid();
        foreach (['framework/sessions', 'framework/views', 'framework/cache', 'logs', 'app'] as $dir) {
            if (! is_dir("{$storage}/{$dir}")) {
                mkdir("{$storage}/{$dir}", 0777, true);
            }
        }
        $app = new Application(__DIR__.'/App');
        $app->useStoragePath($storage);
        $app->singleton(HttpKernelContract::class, HttpKernel::class);
        $app->singleton(ConsoleKernel::class, AppConsoleKernel::class);
        $app->singleton(ExceptionHandler::class, Handler::class);
        $app->singleton(RecordingBroadcaster::class);
        $app->afterBootstrapping(LoadConfiguration::class, function (Application $app): void {
            foreach ($this->config() as $key => $value) {
                $app['config']->set($key, $value);
            }
        });
        $app->make(ConsoleKernel::class)->bootstrap();
        $this->broadcasts = $app->make(RecordingBroadcaster::class);

        return $app;
    }

    /** @return array<string, mixed> config the test app has before its providers register (an app's config/*.php) */
    protected function config(): array
    {
        return [];
    }

    protected function setUp(): void
    {
        parent::setUp();
        Schema::create('users', function (Blueprint $table) {
            $table->id();
            $table->string('name');
            $table->timestamps();
        });
        Schema::create('jobs', function (Blueprint $table) {
            $table->bigIncrements('id');
            $table->string('queue')->index();
            $table->longText('payload');
            $table->unsignedTinyInteger('attempts');
            $table->unsignedInteger('reserved_at')->nullable();
            $table->unsignedInteger('available_at');
            $table->unsignedInteger('created_at');
        });
        $code = $this->artisan('migrate', ['--force' => true]);
        $this->assertSame(0, $code, \Illuminate\Support\Facades\Artisan::output());
        if (is_file(storage_path('logs/laravel.log'))) {
            unlink(storage_path('logs/laravel.log'));
        }
    }

    protected function user(string $name = 'ada'): User
    {
        return User::query()->create(['name' => $name]);
    }

    protected function conversation(User $user, ?string $clientId = 'page-1', array $tools = []): Conversation
    {
        $conversation = new Conversation();
        $conversation->user_id = $user->getKey();
        $conversation->save();
        if ($clientId !== null) {
            $this->page($user, $conversation, $clientId, 1, $tools)->assertNoContent();
            $conversation->refresh();
        }

        return $conversation;
    }

    /** POSTs a manifest from the page load `clientId`. */
    protected function page(User $user, Conversation $conversation, string $clientId, int $rev = 1, array $tools = []): TestResponse
    {
        // Complete entries, as a page sends them: an llmName, and hints as a JSON object.
        foreach ($tools as &$tool) {
            $tool['hints'] = (object) ($tool['hints'] ?? []);
            $tool['llmName'] ??= str_replace('.', '__', (string) ($tool['name'] ?? ''));
        }
        unset($tool);

        return $this->bridge($user, $conversation, ['protocol' => 1, 'type' => 'manifest', 'clientId' => $clientId, 'rev' => $rev, 'tools' => $tools]);
    }

    /** POSTs one page message to the bridge as the signed-in user, with a valid CSRF token. */
    protected function bridge(User $user, Conversation $conversation, array|string $message): TestResponse
    {
        return $this->actingAs($user)
            ->withSession(['_token' => 'csrf-token'])
            ->call('POST', "/toolmark/bridge/{$conversation->id}", [], [], [], [
                'HTTP_X_CSRF_TOKEN' => 'csrf-token',
                'CONTENT_TYPE' => 'application/json',
                'HTTP_ACCEPT' => 'application/json',
            ], is_string($message) ? $message : json_encode($message));
    }

    /** The reasons the bridge logged for rejected page messages, in order. */
    protected function rejections(): array
    {
        $log = storage_path('logs/laravel.log');
        if (! is_file($log)) {
            return [];
        }
        preg_match_all('/"reason":"([a-z_]+)"/', (string) file_get_contents($log), $m);

        return $m[1];
    }

    /** @return list<object> the stored call bindings of a conversation, oldest first */
    protected function calls(Conversation $conversation): array
    {
        return DB::table('toolmark_calls')->where('conversation_id', $conversation->id)->orderBy('created_at')->get()->all();
    }
}

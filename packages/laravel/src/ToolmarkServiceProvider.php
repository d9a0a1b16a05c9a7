<?php

namespace Toolmark\Laravel;

use Illuminate\Broadcasting\BroadcastManager;
use Illuminate\Support\Facades\DB;
use Illuminate\Support\Facades\Log;
use Illuminate\Support\Facades\Route;
use Illuminate\Support\ServiceProvider;
use Toolmark\Laravel\Agent\AgentLoop;
use Toolmark\Laravel\Agent\AgentModel;
use Toolmark\Laravel\Agent\OpenAiChatModel;
use Toolmark\Laravel\Console\InstallCommand;
use Toolmark\Laravel\Console\PruneCommand;
use Toolmark\Laravel\Events\ToolmarkChat;
use Toolmark\Laravel\Generated\Wire;
use Toolmark\Laravel\Http\Controllers\BridgeController;
use Toolmark\Laravel\Http\Controllers\GrantController;
use Toolmark\Laravel\Http\Controllers\MessageController;
use Toolmark\Laravel\Http\Controllers\PageGoneController;
use Toolmark\Laravel\Http\Middleware\LimitBody;
use Toolmark\Laravel\Models\Conversation;
use Toolmark\Laravel\Models\ConversationMessage;

/**
 * Registers Toolmark in a Laravel app (auto-discovered through composer.json): the merged config,
 * the migrations, the routes (`toolmark.routes`), the private channel `toolmark.{user}.{conversation}`,
 * the agent loop's model, the chat line broadcasts and the artisan commands.
 */
class ToolmarkServiceProvider extends ServiceProvider
{
    /** Why the broadcaster could not be built at boot (the channel is then not registered), or null. */
    public static ?string $broadcastProblem = null;

    /** Merges the config and binds the manager, the bridge, the agent loop and its model (unless the app bound one). */
    public function register(): void
    {
        $this->mergeConfigFrom(__DIR__.'/../config/toolmark.php', 'toolmark');
        $this->app->singleton(Toolmark::class);
        $this->app->alias(Toolmark::class, 'toolmark');
        $this->app->bind(Bridge::class);
        $this->app->bind(AgentLoop::class);
        $this->app->bindIf(AgentModel::class, fn (): AgentModel => new OpenAiChatModel(
            (string) config('toolmark.llm.base_url'),
            (string) config('toolmark.llm.api_key'),
            (string) config('toolmark.llm.model'),
            (int) config('toolmark.llm.timeout', 60),
        ));
    }

    /** Migrations, publishing and commands, the routes, the private channel and the chat broadcasts. */
    public function boot(): void
    {
        $this->loadMigrationsFrom(__DIR__.'/../database/migrations');
        if ($this->app->runningInConsole()) {
            $this->offerPublishing();
            $this->commands([InstallCommand::class, PruneCommand::class]);
        }

        Route::macro('toolmark', function (): void {
            ToolmarkServiceProvider::routes();
        });
        if (config('toolmark.routes.enabled', true)) {
            $this->app->booted(function (): void {
                if (! $this->app->routesAreCached()) {
                    // The body limit first: the middleware after it (the CSRF check) may read the whole body.
                    Route::middleware([LimitBody::class, ...(array) config('toolmark.routes.middleware', ['web', 'auth'])])->group(fn () => self::routes());
                }
            });
        }

        // After every provider booted: the app may add its broadcaster driver (Broadcast::extend) in its own boot().
        $this->app->booted(function (): void {
            self::$broadcastProblem = null;
            try {
                $this->app->make(BroadcastManager::class)->channel(
                    Wire::NAMES['channelPrefix'].'.{user}.{conversation}',
                    // Only the user named in the channel, and only for a conversation they own. An allowed
                    // authorization is a page of that conversation loading: its first message waits for the manifest.
                    function ($auth, string $user, Conversation $conversation): bool {
                        $allowed = (string) $auth->getAuthIdentifier() === $user && $conversation->isOwnedBy($auth->getAuthIdentifier());
                        if ($allowed) {
                            PageWait::connecting($user, $conversation->id);
                        }

                        return $allowed;
                    },
                );
            } catch (\Throwable $error) {
                // A broadcaster that cannot be built (Pusher without PUSHER_APP_KEY) must not stop the app
                // from booting: `toolmark:install` says what to set, and the log says why pages get no calls.
                self::$broadcastProblem = $error->getMessage();
                Log::warning('toolmark: the broadcaster could not be built; pages get no calls until it is configured', ['error' => $error->getMessage()]);
            }
        });

        if (config('toolmark.chat_events', true)) {
            ConversationMessage::created(fn (ConversationMessage $line) => DB::afterCommit(fn () => self::broadcastChat($line)));
        }
    }

    /** `vendor:publish --tag=toolmark-config` and `--tag=toolmark-migrations` (what toolmark:install runs), into the app's paths. */
    public function offerPublishing(): void
    {
        $this->publishes([__DIR__.'/../config/toolmark.php' => config_path('toolmark.php')], 'toolmark-config');
        $this->publishes([__DIR__.'/../database/migrations' => database_path('migrations')], 'toolmark-migrations');
    }

    /**
     * The package's routes (`toolmark.routes.bridge`, `.gone`, `.messages`, `.grants`), without middleware:
     * `Route::toolmark()` inside your own group (with `web` and your auth) registers the same.
     */
    public static function routes(): void
    {
        foreach (['bridge' => BridgeController::class, 'gone' => PageGoneController::class, 'messages' => MessageController::class] as $key => $controller) {
            $path = config("toolmark.routes.{$key}");
            if (is_string($path) && $path !== '') {
                Route::post($path, $controller)->name("toolmark.{$key}");
            }
        }
        // The user's grants (remembered approvals): list, store, revoke.
        $grants = config('toolmark.routes.grants', 'toolmark/grants');
        if (is_string($grants) && $grants !== '') {
            Route::get($grants, [GrantController::class, 'index'])->name('toolmark.grants');
            Route::post($grants, [GrantController::class, 'store'])->name('toolmark.grants.store');
            Route::delete($grants.'/{grant}', [GrantController::class, 'destroy'])->name('toolmark.grants.destroy');
        }
        Route::getRoutes()->refreshNameLookups(); // names given after a route was added are found by route()
    }

    /**
     * Sends a new chat line to the conversation's page. A failed publish loses only the live
     * update (the page reloads its chat when it subscribes again), so it is reported, not thrown.
     */
    private static function broadcastChat(ConversationMessage $line): void
    {
        if (! in_array($line->role, ToolmarkChat::ROLES, true) || (string) $line->text === '') {
            return;
        }
        $userId = Conversation::query()->whereKey($line->conversation_id)->value('user_id');
        if ($userId === null) {
            return;
        }
        try {
            event(new ToolmarkChat((int) $userId, (int) $line->conversation_id, $line));
        } catch (\Throwable $error) {
            report($error);
        }
    }
}

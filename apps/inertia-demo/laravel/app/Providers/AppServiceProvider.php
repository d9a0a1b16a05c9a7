<?php

namespace App\Providers;

use App\Database\ImmediateSqliteConnector;
use App\Events\ToolmarkChat;
use App\Models\Conversation;
use App\Models\ConversationMessage;
use App\Policies\ConversationPolicy;
use App\Stand\PusherHttpBroadcaster;
use App\Stand\PusherHttpPublisher;
use App\Toolmark\AgentModel;
use App\Toolmark\OpenAiChatModel;
use App\Toolmark\ToolmarkRelay;
use Illuminate\Broadcasting\BroadcastManager;
use Illuminate\Support\Facades\Broadcast;
use Illuminate\Support\Facades\DB;
use Illuminate\Support\Facades\Gate;
use Illuminate\Support\ServiceProvider;

final class AppServiceProvider extends ServiceProvider
{
    public function register(): void
    {
        $this->app->bind('db.connector.sqlite', ImmediateSqliteConnector::class);
        $this->app->singleton(AgentModel::class, fn (): AgentModel => new OpenAiChatModel(
            (string) config('toolmark.llm.base_url'),
            (string) config('toolmark.llm.api_key'),
            (string) config('toolmark.llm.model'),
        ));
        $this->app->bind(ToolmarkRelay::class, fn (): ToolmarkRelay => new ToolmarkRelay((int) config('toolmark.deadline_ms')));
    }

    public function boot(): void
    {
        $this->app->make(BroadcastManager::class)->extend('pusher-http', function ($app, array $config) {
            return new PusherHttpBroadcaster(new PusherHttpPublisher(
                (string) $config['app_id'],
                (string) $config['key'],
                (string) $config['secret'],
                (string) $config['host'],
                (int) $config['port'],
            ));
        });
        Gate::policy(Conversation::class, ConversationPolicy::class);
        Broadcast::routes();
        require base_path('routes/channels.php');
        ConversationMessage::created(fn (ConversationMessage $line) => DB::afterCommit(fn () => self::broadcastChat($line)));
    }

    /**
     * Sends a new chat line to the conversation's page (the chat updates over Echo, no polling).
     * A failed publish loses only the live update: the page reloads the chat when it (re)subscribes.
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
            ToolmarkChat::dispatch((int) $userId, (int) $line->conversation_id, $line);
        } catch (\Throwable $error) {
            report($error);
        }
    }
}

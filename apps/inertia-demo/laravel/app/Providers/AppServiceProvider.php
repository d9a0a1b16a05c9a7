<?php

namespace App\Providers;

use App\Database\ImmediateSqliteConnector;
use App\Stand\PusherHttpBroadcaster;
use App\Stand\PusherHttpPublisher;
use Illuminate\Broadcasting\BroadcastManager;
use Illuminate\Support\Facades\Broadcast;
use Illuminate\Support\ServiceProvider;

/** The demo's own glue; everything Toolmark does comes from toolmark/laravel (config/toolmark.php). */
final class AppServiceProvider extends ServiceProvider
{
    public function register(): void
    {
        $this->app->bind('db.connector.sqlite', ImmediateSqliteConnector::class);
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
        Broadcast::routes();
    }
}

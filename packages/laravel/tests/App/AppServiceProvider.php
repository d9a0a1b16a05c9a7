<?php

namespace Toolmark\Laravel\Tests\App;

use Illuminate\Support\Facades\Broadcast;
use Illuminate\Support\ServiceProvider;

/** TEST APP: what an app adds itself: its broadcaster driver and the broadcasting auth route. */
final class AppServiceProvider extends ServiceProvider
{
    public function boot(): void
    {
        Broadcast::extend('recording', fn ($app) => $app->make(RecordingBroadcaster::class));
        Broadcast::routes();
    }
}

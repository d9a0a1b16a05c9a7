<?php

namespace App\Providers;

use Illuminate\Support\Facades\Route;
use Illuminate\Support\ServiceProvider;

final class RouteServiceProvider extends ServiceProvider
{
    public function boot(): void
    {
        // The demo's pages and sign-in; toolmark/laravel registers its own routes (config/toolmark.php).
        Route::middleware('web')->group(base_path('routes/demo.php'));
    }
}

<?php

namespace App\Http;

use Illuminate\Foundation\Http\Kernel as HttpKernel;

final class Kernel extends HttpKernel
{
    protected $middlewareGroups = [
        'web' => [
            \Illuminate\Cookie\Middleware\EncryptCookies::class,
            \Illuminate\Cookie\Middleware\AddQueuedCookiesToResponse::class,
            \Illuminate\Session\Middleware\StartSession::class,
            Middleware\VerifyCsrfToken::class,
            \Illuminate\Routing\Middleware\SubstituteBindings::class,
            Middleware\HandleInertiaRequests::class,
        ],
    ];

    protected $routeMiddleware = [
        'auth' => Middleware\Authenticate::class,
        'can' => \Illuminate\Auth\Middleware\Authorize::class,
    ];
}

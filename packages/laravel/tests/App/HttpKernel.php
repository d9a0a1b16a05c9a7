<?php

namespace Toolmark\Laravel\Tests\App;

use Illuminate\Foundation\Http\Kernel;

/** TEST APP: the HTTP kernel of a plain Laravel app: `web` (cookies, session, CSRF, bindings) and `auth`. */
final class HttpKernel extends Kernel
{
    protected $middlewareGroups = [
        'web' => [
            \Illuminate\Cookie\Middleware\EncryptCookies::class,
            \Illuminate\Cookie\Middleware\AddQueuedCookiesToResponse::class,
            \Illuminate\Session\Middleware\StartSession::class,
            VerifyCsrfToken::class,
            \Illuminate\Routing\Middleware\SubstituteBindings::class,
        ],
    ];

    protected $routeMiddleware = [
        'auth' => \Illuminate\Auth\Middleware\Authenticate::class,
    ];
}

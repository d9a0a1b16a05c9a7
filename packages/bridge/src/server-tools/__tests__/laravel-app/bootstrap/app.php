<?php
// A minimal Laravel 8 app (Debian's php-laravel-framework) for the server-tools browser test.
class HttpKernel extends Illuminate\Foundation\Http\Kernel
{
    protected $middlewareGroups = [
        'web' => [
            Illuminate\Cookie\Middleware\EncryptCookies::class,
            Illuminate\Cookie\Middleware\AddQueuedCookiesToResponse::class,
            Illuminate\Session\Middleware\StartSession::class,
            Illuminate\Foundation\Http\Middleware\VerifyCsrfToken::class,
            Illuminate\Routing\Middleware\SubstituteBindings::class,
        ],
    ];
}
class RouteProvider extends Illuminate\Foundation\Support\Providers\RouteServiceProvider
{
    public function boot()
    {
        $this->routes(function () {
            Illuminate\Support\Facades\Route::middleware('web')->group(base_path('routes/web.php'));
        });
    }
}
// Laravel writes its caches and sessions: into the test's temporary directory, never the fixture.
$runtime = getenv('TOOLMARK_RUNTIME');
foreach (['SERVICES', 'PACKAGES', 'CONFIG', 'ROUTES', 'EVENTS'] as $cache) {
    $_SERVER["APP_{$cache}_CACHE"] = $_ENV["APP_{$cache}_CACHE"] = $runtime.'/'.strtolower($cache).'.php';
}
$app = new Illuminate\Foundation\Application(dirname(__DIR__));
$app->useStoragePath($runtime.'/storage');
$app->singleton(Illuminate\Contracts\Http\Kernel::class, HttpKernel::class);
$app->singleton(Illuminate\Contracts\Console\Kernel::class, Illuminate\Foundation\Console\Kernel::class);
$app->singleton(Illuminate\Contracts\Debug\ExceptionHandler::class, Illuminate\Foundation\Exceptions\Handler::class);
return $app;

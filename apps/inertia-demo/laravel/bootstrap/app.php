<?php

// Laravel 8.83 from Debian (php-laravel-framework): Illuminate and its dependencies come from
// /usr/share/php; the app's own classes from bootstrap/autoload.php (no Composer here).

require '/usr/share/php/Illuminate/autoload.php';
require __DIR__.'/autoload.php';

$app = new Illuminate\Foundation\Application(dirname(__DIR__));
$app->useStoragePath(getenv('TOOLMARK_STORAGE') ?: dirname(__DIR__).'/storage');

$app->singleton(Illuminate\Contracts\Http\Kernel::class, App\Http\Kernel::class);
$app->singleton(Illuminate\Contracts\Console\Kernel::class, App\Console\Kernel::class);
$app->singleton(Illuminate\Contracts\Debug\ExceptionHandler::class, App\Exceptions\Handler::class);

return $app;

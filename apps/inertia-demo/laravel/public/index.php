<?php

use Illuminate\Contracts\Http\Kernel;
use Illuminate\Http\Request;

// `php -S 127.0.0.1:PORT -t public public/index.php`: files that exist (built assets) are served as-is.
if (PHP_SAPI === 'cli-server' && is_file(__DIR__.parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH))) {
    return false;
}

$app = require __DIR__.'/../bootstrap/app.php';
$kernel = $app->make(Kernel::class);
$response = $kernel->handle($request = Request::capture())->send();
$kernel->terminate($request, $response);

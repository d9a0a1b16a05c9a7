<?php

// No Composer here: PSR-4 for App\ (app/), plus the one file that holds two classes, and the
// toolmark/laravel package through its path autoloader (a real app gets both from Composer's
// vendor/autoload.php after `composer require toolmark/laravel`).
require __DIR__.'/../../../../packages/laravel/autoload.php';

spl_autoload_register(function (string $class): void {
    $shared = [
        'App\\Database\\ImmediatePdo' => 'Database/ImmediateSqliteConnector.php',
    ];
    if (! str_starts_with($class, 'App\\')) {
        return;
    }
    $file = __DIR__.'/../app/'.($shared[$class] ?? str_replace('\\', '/', substr($class, 4)).'.php');
    if (is_file($file)) {
        require_once $file;
    }
});

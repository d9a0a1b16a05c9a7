<?php

// A path autoloader for apps without Composer (this repository's demo and tests run on Debian's
// Laravel 8 with no Packagist): PSR-4 `Toolmark\Laravel\` → src/, exactly what composer.json
// declares. An app installed with `composer require toolmark/laravel` never loads this file.
spl_autoload_register(function (string $class): void {
    $prefix = 'Toolmark\\Laravel\\';
    if (! str_starts_with($class, $prefix)) {
        return;
    }
    $file = __DIR__.'/src/'.str_replace('\\', '/', substr($class, strlen($prefix))).'.php';
    if (is_file($file)) {
        require_once $file;
    }
});

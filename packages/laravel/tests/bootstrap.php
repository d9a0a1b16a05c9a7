<?php

// PHPUnit's bootstrap: Debian's Laravel 8 (php-laravel-framework), the package through its path
// autoloader (no Composer here), and the tests' own classes.
require '/usr/share/php/Illuminate/autoload.php';
require __DIR__.'/../autoload.php';

spl_autoload_register(function (string $class): void {
    $prefix = 'Toolmark\\Laravel\\Tests\\';
    if (str_starts_with($class, $prefix)) {
        $file = __DIR__.'/'.str_replace('\\', '/', substr($class, strlen($prefix))).'.php';
        if (is_file($file)) {
            require_once $file;
        }
    }
});

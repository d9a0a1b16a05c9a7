<?php
// Just what the test app needs: encrypted cookies, file sessions, CSRF, validation, routes.
return [
    'name' => 'toolmark-test',
    'env' => 'testing',
    'debug' => false,
    'url' => 'http://127.0.0.1',
    'key' => 'base64:'.base64_encode(str_repeat('k', 32)),
    'cipher' => 'AES-256-CBC',
    'locale' => 'en',
    'fallback_locale' => 'en',
    'providers' => [
        Illuminate\Foundation\Providers\FoundationServiceProvider::class,
        Illuminate\Cookie\CookieServiceProvider::class,
        Illuminate\Encryption\EncryptionServiceProvider::class,
        Illuminate\Filesystem\FilesystemServiceProvider::class,
        Illuminate\Session\SessionServiceProvider::class,
        Illuminate\Translation\TranslationServiceProvider::class,
        Illuminate\Validation\ValidationServiceProvider::class,
        Illuminate\View\ViewServiceProvider::class,
        RouteProvider::class,
    ],
];

<?php

namespace App\Http\Middleware;

use Illuminate\Foundation\Http\Middleware\VerifyCsrfToken as Middleware;

/** Laravel 8's CSRF check (Laravel 11 calls it ValidateCsrfToken); sets the XSRF-TOKEN cookie Echo's page reads. */
final class VerifyCsrfToken extends Middleware
{
    protected $except = [];
}

<?php

namespace App\Exceptions;

use Illuminate\Foundation\Exceptions\Handler as ExceptionHandler;

final class Handler extends ExceptionHandler
{
    /** Never flash these to the session on validation errors. */
    protected $dontFlash = ['password', 'text'];
}

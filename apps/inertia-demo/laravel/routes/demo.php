<?php

// The demo's own routes (toolmark/laravel registers the bridge, the chat and the page-gone signal).

use App\Http\Controllers\DemoController;
use Illuminate\Support\Facades\Route;

// No icon: the pages name an empty one (`data:,`); pages without a <link rel="icon"> get 204, not a 404.
Route::get('/favicon.ico', fn () => response()->noContent());
Route::get('/login/{name}', [DemoController::class, 'login']);
Route::get('/login', fn () => response('Sign in at /login/{name}', 401))->name('login');

Route::middleware('auth')->group(function () {
    Route::get('/', [DemoController::class, 'home']);
    Route::get('/challenges', [DemoController::class, 'index']);
    // The form's POST and the page it redirects back to with errors take the session lock, so a
    // concurrent request (a chat reload) cannot write an older session (without the flashed errors) back.
    Route::post('/challenges', [DemoController::class, 'store'])->block();
    Route::get('/challenges/new', [DemoController::class, 'create'])->block();
    Route::get('/challenges/{challenge}', [DemoController::class, 'show']);
    Route::delete('/challenges/{challenge}', [DemoController::class, 'destroy']);
    Route::get('/settings', [DemoController::class, 'settings']);
    Route::get('/drafts', [DemoController::class, 'drafts']);
    Route::get('/wizard', [DemoController::class, 'wizard']);
    Route::post('/wizard', [DemoController::class, 'finishWizard']);
});

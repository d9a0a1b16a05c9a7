<?php
use Illuminate\Http\Request;
use Illuminate\Support\Facades\Route;

// The test page and its bundle, same-origin with the tool endpoints.
Route::get('/', fn () => response('<!doctype html><script type="module" src="/page.js"></script>'));
Route::get('/page.js', fn () => response(file_get_contents(getenv('TOOLMARK_PAGE_JS')))
    ->header('Content-Type', 'text/javascript'));

// What a Laravel app lists: one definition per tool.
Route::get('/toolmark/tools', fn () => ['tools' => [
    [
        'name' => 'challenges.create',
        'description' => 'Create a challenge',
        'inputSchema' => [
            'type' => 'object',
            'properties' => ['title' => ['type' => 'string'], 'pin' => ['type' => 'string']],
            'required' => ['title'],
            'additionalProperties' => false,
        ],
        'hints' => ['consequential' => true],
        'sensitivePaths' => ['pin'],
    ],
    ['name' => 'challenges.delete', 'description' => 'Delete', 'inputSchema' => ['type' => 'object'], 'hints' => ['destructive' => true]],
    ['name' => 'challenges.crash', 'description' => 'Fails', 'inputSchema' => ['type' => 'object'], 'hints' => ['readOnly' => true]],
    ['name' => 'challenges.moved', 'description' => 'Redirects', 'inputSchema' => ['type' => 'object'], 'hints' => ['readOnly' => true]],
]]);

Route::post('/toolmark/tools/challenges.create', function (Request $request) {
    $data = $request->validate(['title' => 'required|string|min:3|not_in:taken', 'pin' => 'nullable|digits:4']);
    return response()->json(['id' => 7, 'title' => $data['title']], 201);
});
Route::post('/toolmark/tools/challenges.delete', fn () => abort(403));
Route::post('/toolmark/tools/challenges.crash', function () {
    throw new RuntimeException('SQLSTATE secret dsn');
});
Route::post('/toolmark/tools/challenges.moved', fn () => redirect('/login'));

<?php

// routes/web.php

use App\Http\Controllers\ChatController;
use App\Http\Controllers\ToolmarkBridgeController;
use Illuminate\Support\Facades\Route;

Route::middleware('auth')->group(function () {
    Route::post('/conversations', [ChatController::class, 'store']);
    Route::post('/conversations/{conversation}/messages', [ChatController::class, 'message'])
        ->can('update', 'conversation');
    Route::post('/toolmark/bridge/{conversation}', ToolmarkBridgeController::class)
        ->can('update', 'conversation');
});

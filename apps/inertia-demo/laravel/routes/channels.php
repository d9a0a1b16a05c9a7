<?php

// routes/channels.php

use App\Models\Conversation;
use App\Models\User;
use Illuminate\Support\Facades\Broadcast;

Broadcast::channel(
    'toolmark.{user}.{conversation}',
    function (User $auth, string $user, Conversation $conversation): bool {
        return (string) $auth->getKey() === $user
            && (int) $conversation->user_id === (int) $auth->getKey();
    },
);

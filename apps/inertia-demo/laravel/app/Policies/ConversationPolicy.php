<?php

namespace App\Policies;

use App\Models\Conversation;
use App\Models\User;

final class ConversationPolicy
{
    /** Only the owner may post to a conversation or answer its page calls. */
    public function update(User $user, Conversation $conversation): bool
    {
        return (int) $conversation->user_id === (int) $user->getKey();
    }
}

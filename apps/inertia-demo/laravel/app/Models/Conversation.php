<?php

namespace App\Models;

use Illuminate\Database\Eloquent\Model;
use Illuminate\Database\Eloquent\Relations\BelongsTo;
use Illuminate\Database\Eloquent\Relations\HasMany;

final class Conversation extends Model
{
    protected $guarded = ['id', 'user_id'];

    public function user(): BelongsTo
    {
        return $this->belongsTo(User::class);
    }

    public function messages(): HasMany
    {
        return $this->hasMany(ConversationMessage::class);
    }

    /** @return list<array<string, mixed>> the provider-neutral history, oldest first */
    public function agentHistory(): array
    {
        return $this->messages()->orderBy('id')->get()
            ->filter(fn (ConversationMessage $m): bool => $m->agent !== null)
            ->map(fn (ConversationMessage $m): array => $m->secret_text !== null
                ? ['role' => 'user', 'text' => $m->secret_text]
                : $m->agent)
            ->values()
            ->all();
    }
}

final class ConversationMessage extends Model
{
    protected $guarded = ['id'];

    protected $hidden = ['secret_text'];

    protected $casts = ['agent' => 'array', 'secret_text' => 'encrypted'];
}

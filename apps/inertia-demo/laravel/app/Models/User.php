<?php

namespace App\Models;

use Illuminate\Database\Eloquent\Relations\HasMany;
use Illuminate\Foundation\Auth\User as Authenticatable;
use Toolmark\Laravel\Models\Conversation;

final class User extends Authenticatable
{
    protected $guarded = ['id'];

    public function conversations(): HasMany
    {
        return $this->hasMany(Conversation::class);
    }
}
